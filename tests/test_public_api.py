import importlib

import memstrata

SEED_NAMES = (
    "check_trigger generate_summary SummaryConfig SummaryTemplate SummaryResult TriggerResult "
    "Summarizer truncate_content truncate_content_async TruncationStrategy MessageFilter "
    "MessageFilterPipeline SUPERVISOR_PIPELINE agent_pipeline extract_conversation_history "
    "compress_conversation_history ConversationSummary SummaryEntity NullVectorReader "
    "NullConversationMemory"
).split()


def test_every_seed_name_is_importable_from_the_top_level() -> None:
    missing = [name for name in SEED_NAMES if not hasattr(memstrata, name)]
    assert missing == []
    assert set(SEED_NAMES) <= set(memstrata.__all__)


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(memstrata).items()
        if not name.startswith("_") and not isinstance(value, type(importlib))
    }
    assert set(memstrata.__all__) == public | {"__version__"}
    for name in memstrata.__all__:
        assert getattr(memstrata, name) is not None
