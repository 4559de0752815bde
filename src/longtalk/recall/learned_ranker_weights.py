"""The shipped weights of the learned recall ranker (generated: do not edit).

Fitted by ``bench/fit_ranker.py`` on locomo_dev.json (1155 questions).
"""

WEIGHTS: dict[str, float] = {
    "dense": -1.559963,
    "lexical": 2.586514,
    "fused_gap": 0.53572,
    "dense_rank": -0.112634,
    "lexical_rank": 0.119917,
    "day_strength": 2.432582,
    "day_rank": -0.168562,
    "near1_gap": 0.754294,
    "near2_gap": 1.121604,
    "speaker_named": 1.117802,
    "other_named": -1.194812,
    "when_and_dated": 2.175941,
    "log_tokens": 0.836328,
    "short": 0.109983,
    "is_question": -0.78185,
    "previous_gap": 1.724678,
    "next_gap": 0.314935,
    "dense2": -0.183805,
    "dense2_gap": -0.102764,
    "session_start": 1.073359,
    "session_position": -0.239594,
    "dense_z": -0.000946,
    "dense2_z": 0.388912,
}
