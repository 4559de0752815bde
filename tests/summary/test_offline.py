"""The offline summarizer tells threads in the speakers' own words (real MiniLM, real weights)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from longtalk.core.messages import Message, assistant, tool_result, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.summary.chain import told_pieces
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline import (
    NarrativeConfig,
    OfflineSummarizer,
    OfflineSummaryWriter,
    parse_transcript,
)
from longtalk.summary.offline.threads import Line, parse_lines, render
from longtalk.summary.writer import SummaryWriter

MAY_8 = datetime(2023, 5, 8, 13, 56)
MAY_25 = datetime(2023, 5, 25, 10, 0)
LINE = re.compile(r'^(?P<speaker>[^":]+) \((?P<day>[^)]+)\): "(?P<quote>.+)"$')


def chat(when: datetime = MAY_8) -> list[Message]:
    return [
        user("Hey Mel! Good to see you!", name="Caroline", timestamp=when),
        assistant("Hi Caroline! How have you been?", name="Melanie", timestamp=when),
        user(
            "I went to a LGBTQ support group yesterday and it was so powerful. Haha, it was fun.",
            name="Caroline",
            timestamp=when,
        ),
        assistant(
            "Wow, that's cool! I painted a lake sunrise last year and I'm taking my kids "
            "swimming this weekend.",
            name="Melanie",
            timestamp=when,
        ),
        user(
            "I'm not going back to my old job, I've decided to study counseling instead.",
            name="Caroline",
            timestamp=when,
        ),
        assistant("Thanks, Caroline! Talk soon.", name="Melanie", timestamp=when),
    ]


def said(messages: list[Message]) -> str:
    return " ".join(" ".join(m.content.split()) for m in messages)


def test_every_line_quotes_a_speaker_word_for_word_with_name_and_date(
    embedder: MiniLMEmbedder,
) -> None:
    messages = chat()
    summary = OfflineSummaryWriter(embedder).summarize(None, messages)
    lines = told_pieces(summary.narrative)
    assert lines
    for line in lines:
        match = LINE.match(line)
        assert match, line
        assert match["speaker"] in ("Caroline", "Melanie")
        assert match["day"] == "8 May 2023"
        assert match["quote"] in said(messages)  # nothing rewritten, nothing garbled


def test_what_happened_is_told_and_small_talk_is_not(embedder: MiniLMEmbedder) -> None:
    narrative = OfflineSummaryWriter(embedder).summarize(None, chat()).narrative
    assert "LGBTQ support group" in narrative
    assert "Good to see you" not in narrative and "Talk soon" not in narrative


def test_a_negation_is_kept_as_said(embedder: MiniLMEmbedder) -> None:
    config = NarrativeConfig(ratio=1.0)  # room for every sentence
    narrative = OfflineSummaryWriter(embedder, config).summarize(None, chat()).narrative
    assert "I'm not going back to my old job" in narrative


def test_lines_are_grouped_by_participant_in_the_order_said(embedder: MiniLMEmbedder) -> None:
    config = NarrativeConfig(ratio=1.0)
    narrative = OfflineSummaryWriter(embedder, config).summarize(None, chat()).narrative
    lines = told_pieces(narrative)
    speakers = [line.split(" (")[0] for line in lines]
    assert speakers == sorted(speakers, key=("Caroline", "Melanie").index)
    caroline = [line for line in lines if line.startswith("Caroline")]
    assert caroline.index(next(x for x in caroline if "support group" in x)) < caroline.index(
        next(x for x in caroline if "counseling" in x)
    )


def test_an_extension_consolidates_instead_of_replaying(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder)
    first = writer.summarize(None, chat(MAY_8))
    later = [
        user(
            "I went to the LGBTQ support group again and it was so powerful.",
            name="Caroline",
            timestamp=MAY_25,
        ),
        user(
            "I started researching adoption agencies because I want to give kids a home.",
            name="Caroline",
            timestamp=MAY_25,
        ),
    ]
    second = writer.summarize(first, later)
    lines = second.narrative.splitlines()
    assert any("adoption agencies" in line and "(25 May 2023)" in line for line in lines)
    assert sum("support group" in line for line in lines) == 1  # one thread, told once
    assert set(parse_lines(first.narrative)) & set(parse_lines(second.narrative))


def test_the_narrative_stays_bounded_however_long_the_chat(embedder: MiniLMEmbedder) -> None:
    config = NarrativeConfig()
    writer = OfflineSummaryWriter(embedder, config)
    summary: ConversationSummary | None = None
    for day in range(1, 13):
        when = datetime(2023, 6, day)
        batch = [
            user(
                f"Today I fixed {day} bikes at the shop and sold a red {day}-speed one.",
                name="Ann",
                timestamp=when,
            ),
            assistant(
                f"I baked {day} loaves of sourdough bread for the market on Sunday.",
                name="Ben",
                timestamp=when,
            ),
        ] * 6
        summary = writer.summarize(summary, batch)
    assert summary is not None
    words = len(re.findall(r"\w+", summary.narrative))
    assert 0 < words <= config.max_words * 1.6  # quotes, names and dates on top of the words
    assert all(LINE.match(line) for line in summary.narrative.splitlines())


def test_the_people_are_told_before_an_ai_assistant(embedder: MiniLMEmbedder) -> None:
    messages = [
        user("I'm planning a trip to Lyon with my sister Marie next month."),
        assistant("Lyon is known for its food and its old town by the river."),
        tool_result('{"booking": "HX-22"}', "call-1"),
        user("We fly on March 14 and stay for five nights in a boutique hotel."),
    ]
    narrative = OfflineSummaryWriter(embedder).summarize(None, messages).narrative
    assert "Lyon with my sister Marie" in narrative
    assert "known for its food" not in narrative and "HX-22" not in narrative
    assert narrative.startswith('User said: "')  # no date: the messages carry none
    only_assistant = [assistant("The Eiffel Tower was completed in 1889 for the World's Fair.")]
    told = OfflineSummaryWriter(embedder).summarize(None, only_assistant).narrative
    assert "1889" in told


def test_deterministic_and_empty_input(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder)
    assert writer.summarize(None, chat()) == writer.summarize(None, chat())
    assert writer.summarize(None, []).narrative == ""
    assert writer.summarize(None, [user("ok")]).narrative == ""
    kept = writer.summarize(None, chat())
    assert writer.summarize(kept, [user("ok")]).narrative == kept.narrative
    assert isinstance(writer, SummaryWriter)


def test_the_participants_are_its_entities(embedder: MiniLMEmbedder) -> None:
    summary = OfflineSummaryWriter(embedder).summarize(None, chat())
    assert [(e.name, e.type) for e in summary.entities] == [
        ("Caroline", "person"),
        ("Melanie", "person"),
    ]
    plain = OfflineSummaryWriter(embedder).summarize(None, chat(), structured=False)
    assert plain.entities == () and plain.narrative


def test_told_lines_read_back_as_they_were_written() -> None:
    lines = [
        Line("Caroline", "8 May 2023", "I said 'yes' to the job: finally!"),
        Line("User", "", "We fly on March 14."),
        Line("Ana Lima", "25 May 2023", "No boat for me, remember."),
    ]
    again = parse_lines(render(lines))
    assert sorted(again, key=repr) == sorted(lines, key=repr)
    assert parse_lines("a line in no told form") == [Line("", "", "a line in no told form")]


def test_a_speakers_quotes_of_one_day_share_a_line() -> None:
    lines = [
        Line("Caroline", "8 May 2023", "I went to a support group."),
        Line("Caroline", "8 May 2023", "It was powerful!"),
        Line("Caroline", "8 May 2023", "I'm thinking about counseling :)"),
        Line("Caroline", "8 May 2023", "Maybe next year."),
        Line("Caroline", "9 May 2023", "I signed up."),
        Line("Melanie", "8 May 2023", "Look! [shares a photo of a lake]"),
        Line("Melanie", "8 May 2023", "I painted it."),
    ]
    told = render(lines)
    assert told.splitlines() == [
        'Caroline (8 May 2023): "I went to a support group." "It was powerful!"'
        ' "I\'m thinking about counseling :)"',
        'Caroline (8 May 2023): "Maybe next year."',  # the quote before ends no sentence
        'Caroline (9 May 2023): "I signed up."',
        'Melanie (8 May 2023): "Look! [shares a photo of a lake]" "I painted it."',
    ]
    assert parse_lines(told) == lines
    assert told_pieces(told)[1] == 'Caroline (8 May 2023): "It was powerful!"'


async def test_the_transcript_summarizer(embedder: MiniLMEmbedder) -> None:
    prompt = (
        "Summarize this conversation:\n"
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.\n"
        "Melanie: Wow, I painted a lake sunrise last year.\n"
        "assistant: Noted.\n"
    )
    messages = parse_transcript(prompt)
    assert [m.speaker() for m in messages] == ["Caroline", "Melanie", "Assistant"]
    text = await OfflineSummarizer(OfflineSummaryWriter(embedder)).summarize(prompt)
    assert 'Caroline said: "I went to a LGBTQ support group yesterday' in text


class CountingEmbedder:
    """The real MiniLM, counting the texts it embeds."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_the_writer_ranks_its_told_lines_once_each(embedder: MiniLMEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    writer = OfflineSummaryWriter(counting)
    told = 'Maria (3 June 2023): "I adopted a rescue dog named Shadow last week."'
    chatter = 'Maria (3 June 2023): "Haha yes, that is so true, for sure."'
    first = writer.salience([told, chatter])
    assert len(first) == 2 and first[0] > first[1]
    embedded = counting.texts
    assert writer.salience([chatter, told]) == first[::-1] and counting.texts == embedded
