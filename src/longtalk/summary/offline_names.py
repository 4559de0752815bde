"""Small hand-written word lists for typing names offline: first names and well-known places.

They are deliberately short (common English and international first names; countries,
US states, large cities and regions): cues in :mod:`longtalk.summary.offline_entities`
do most of the work, and these lists only settle names that appear without a cue.
"""

from __future__ import annotations

__all__ = ["FIRST_NAMES", "PLACES"]

FIRST_NAMES = frozenset(
    """Aaron Abby Abigail Adam Adrian Aiden Alan Albert Alex Alexander Alexandra Alice Alicia
    Alison Amanda Amber Amelia Amy Ana Andrea Andrew Andy Angela Ann Anna Anne Annie Anthony
    Antonio Ashley Audrey Austin Ava Barbara Ben Benjamin Beth Betty Bill Bob Bobby Brad
    Brandon Brian Brittany Bruce Caleb Cameron Carl Carla Carlos Carol Caroline Carolyn
    Catherine Charles Charlie Charlotte Chloe Chris Christian Christina Christine Christopher
    Cindy Claire Clara Colin Connor Craig Cynthia Daisy Dan Daniel Danielle David Deborah
    Debbie Dennis Derek Diana Diane Dominic Donald Donna Doris Dorothy Dylan Ed Eddie Edward
    Elena Eli Elijah Elizabeth Ella Ellen Emily Emma Eric Erica Erin Ethan Eva Evan Evelyn
    Frank Fred Gabriel Gary George Gina Grace Greg Gregory Hannah Harry Heather Helen Henry
    Holly Ian Isaac Isabel Isabella Jack Jackson Jacob Jake James Jamie Jane Janet Jason
    Jeff Jen Jennifer Jenny Jeremy Jerry Jess Jessica Jill Jim Jimmy Joan Joanna Joe Joel
    John Johnny Jon Jonathan Jordan Joseph Josh Joshua Joy Joyce Judy Julia Julian Julie
    Justin Karen Kate Katherine Kathy Katie Keith Kelly Ken Kevin Kim Kyle Laura Lauren Leah
    Lee Leo Liam Lily Linda Lisa Logan Lucas Lucy Luke Lynn Madison Maggie Marco Margaret
    Maria Marie Mark Martha Martin Mary Matt Matthew Max Maya Megan Mel Melanie Melissa Mia
    Michael Michelle Mike Molly Monica Nancy Naomi Natalie Nate Nathan Nicholas Nick Nicole
    Noah Olivia Oliver Oscar Owen Pam Pamela Patricia Patrick Paul Paula Peter Phil Philip
    Rachel Ralph Rebecca Richard Rick Rob Robert Robin Roger Ron Rose Ruby Russell Ruth Ryan
    Sam Samantha Samuel Sandra Sara Sarah Scott Sean Sharon Sophia Sophie Stephanie Stephen
    Steve Steven Susan Tim Timothy Tina Todd Tom Tommy Tony Tracy Tyler Valerie Victoria
    Vincent Walter Wendy William Zach Zoe Zoë
    Ahmed Ali Aisha Akira Alejandro Ana Andrés Anja Antoine Björn Chen Diego Dmitri Elif
    Fatima Francesca François Giulia Giovanni Hans Hiroshi Inês Ingrid Ivan Javier João
    Jorge José Juan Jürgen Kenji Klaus Lars Lena Luca Luis Luís Marta María Mateo Mehmet
    Miguel Mohammed Muhammad Nadia Olga Omar Pablo Pedro Priya Rahul Raj Ravi Rosa Sakura
    Sergio Sofia Sven Tomás Wei Yuki Zhang Ángel Łukasz Søren""".split()
)

PLACES = frozenset(
    """Afghanistan Albania Algeria Argentina Armenia Australia Austria Bangladesh Belgium
    Bolivia Brazil Bulgaria Cambodia Cameroon Canada Chile China Colombia Croatia Cuba Cyprus
    Denmark Ecuador Egypt England Estonia Ethiopia Finland France Germany Ghana Greece
    Guatemala Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy Jamaica Japan
    Jordan Kenya Korea Latvia Lebanon Lithuania Luxembourg Malaysia Malta Mexico Morocco Nepal
    Netherlands Nigeria Norway Pakistan Panama Peru Philippines Poland Portugal Qatar Romania
    Russia Scotland Senegal Serbia Singapore Slovakia Slovenia Spain Sweden Switzerland Syria
    Taiwan Tanzania Thailand Tunisia Turkey Uganda Ukraine Uruguay Venezuela Vietnam Wales
    Zimbabwe UK USA US UAE
    Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia
    Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts
    Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon
    Pennsylvania Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming
    Amsterdam Athens Atlanta Auckland Austin Bangkok Barcelona Beijing Berlin Bogotá Boston
    Brussels Budapest Cairo Chicago Copenhagen Dallas Delhi Denver Detroit Dubai Dublin
    Edinburgh Florence Geneva Glasgow Hamburg Helsinki Houston Istanbul Jakarta Kyoto Lagos
    Lima Lisbon London Madrid Manchester Melbourne Miami Milan Montreal Moscow Mumbai Munich
    Nairobi Naples Oslo Paris Philadelphia Porto Prague Rome Seattle Seoul Shanghai Stockholm
    Sydney Tokyo Toronto Vancouver Venice Vienna Warsaw Zurich NYC LA
    Africa Asia Europe America Antarctica Oceania Midwest Scandinavia Caribbean Balkans""".split()
)
