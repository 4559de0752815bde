"""The shipped weights of the learned recall ranker (generated: do not edit).

Fitted by ``bench/fit_ranker.py`` on locomo_dev.json (1155 questions).
"""

WEIGHTS: dict[str, float] = {
    "dense": -0.983828,
    "lexical": 1.235691,
    "fused_gap": -0.487772,
    "dense_rank": -0.286674,
    "lexical_rank": 0.092255,
    "day_strength": 2.113497,
    "day_rank": -0.351609,
    "near1_gap": 1.612846,
    "near2_gap": 0.306442,
    "speaker_named": 0.562052,
    "other_named": -1.398549,
    "when_and_dated": 0.737572,
    "log_tokens": 0.908245,
    "short": -0.002682,
    "is_question": -0.61983,
    "previous_gap": 0.314422,
    "next_gap": -0.242293,
    "dense2": 0.99905,
    "lexical2": 2.126953,
    "dense2_gap": 2.791821,
}
BIAS: float = -7.944835375540863
