"""Configuration: pydantic models for ``agents.yaml``, YAML loading and env overrides.

Layout (every key optional)::

    supervisor:
      memory: {...}              # MemoryConfig: Orchid's keys plus longtalk's
      history_summary_enabled    # legacy toggles, mapped onto memory.*
      history_summary_model
      history_summary_recent_turns
      history_max_turns
      history_max_chars
    agents:
      - name: my-agent
        prompt_sections: {summary_compression_system_prompt, ...}
    storage: {url, sqlite_path, smart_load_tail, busy_timeout_seconds, ...}
    vectors: {url, embedder, background_embedding}
    llm: {base_url, api_key_env, timeout_seconds, max_retries}
    limits: {max_message_chars, max_batch_size, max_metadata_depth, ...}   # every door's
    service: {host, port, api_keys, max_body_bytes, ...}

Environment variables ``LONGTALK_<SECTION>__<KEY>`` (double underscore between levels,
e.g. ``LONGTALK_SUPERVISOR__MEMORY__STRATEGY=none``) override the file, read by
pydantic-settings' environment source: a value is converted to its field's type, a mapping
or list is written in YAML flow style (``{key: tenant}``, ``[a, b]``), and an empty value or
``null`` is None. Unknown keys and bad values raise ``ConfigError`` naming the key path.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from longtalk import legacy
from longtalk.core.limits import DEFAULT_LIMITS, InputLimits
from longtalk.core.redact import REDACTED, redact
from longtalk.core.redact import redact_url as redact_url  # where it was
from longtalk.errors import ConfigError
from longtalk.storage.config import StorageConfig

MemoryStrategy = Literal["none", "running_summary", "rag_augmented"]
TruncationName = Literal["hard", "middle", "llm", "semantic"]
TriggerName = Literal["pending_tokens", "count_or_tokens", "tokens_and_episodes"]
ENV_PREFIX = "LONGTALK_"
MAX_YAML_BYTES = 1_000_000
"""The largest configuration file read."""
MAX_YAML_NODES = 100_000
"""The most values a configuration file may expand to, aliases counted each time used."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class PendingTokensThresholds(_Strict):
    """``pending_tokens``: extend once the messages not yet summarized hold enough tokens."""

    tokens: int = Field(2000, ge=1, description="Pending tokens past which a summary runs.")


class CountOrTokensThresholds(_Strict):
    """``count_or_tokens``: Orbiter's and the LangGraph backend's check, either figure past."""

    messages: int = Field(20, ge=0, description="Pending messages past which a summary runs.")
    tokens: int = Field(4000, ge=0, description="Pending tokens past which a summary runs.")


class TokensAndEpisodesThresholds(_Strict):
    """``tokens_and_episodes``: the episode-summary service's check, both figures reached."""

    tokens: int = Field(200, ge=0, description="Pending tokens a summary needs to exceed.")
    episodes: int = Field(5, ge=1, description="New episodes a summary needs at least.")


class TriggerThresholds(_Strict):
    """``summary_triggers``: each trigger policy's thresholds; ``summary_trigger`` picks one."""

    pending_tokens: PendingTokensThresholds = Field(default_factory=PendingTokensThresholds)
    count_or_tokens: CountOrTokensThresholds = Field(default_factory=CountOrTokensThresholds)
    tokens_and_episodes: TokensAndEpisodesThresholds = Field(
        default_factory=TokensAndEpisodesThresholds
    )


FLAT_TRIGGER_KEYS: dict[str, tuple[str, str]] = {
    "summary_trigger_tokens": ("pending_tokens", "tokens"),
    "message_threshold": ("count_or_tokens", "messages"),
    "token_threshold": ("count_or_tokens", "tokens"),
    "summary_threshold_tokens": ("tokens_and_episodes", "tokens"),
    "summary_min_episodes": ("tokens_and_episodes", "episodes"),
}
"""The flat spellings of the trigger thresholds (Orbiter's and the episode-summary service's
names among them), read into ``summary_triggers``; a flat key wins over its nested one."""

FORMER_MEMORY_KEYS: dict[str, str] = {"max_summary_tokens": "summary_row_max_tokens"}
"""Former names of ``supervisor.memory`` keys, read under their new names with a warning."""


class FormerKeyWarning(FutureWarning):
    """A configuration key goes by a former name; it is read as its new one for now."""


def _read_former_keys(data: dict[str, Any]) -> None:
    """Rename former keys in place, warning for each; a key set under both names is refused."""
    for former, current in FORMER_MEMORY_KEYS.items():
        if former not in data:
            continue
        if current in data:
            raise ValueError(f"{former} is the former name of {current}: set only {current}")
        warnings.warn(
            f"the configuration key {former} is now {current}: rename it "
            "(the former name is still read)",
            FormerKeyWarning,
            stacklevel=2,
        )
        data[current] = data.pop(former)


def _nest_flat_triggers(data: dict[str, Any]) -> None:
    """Move the flat trigger keys into ``summary_triggers``, in place."""
    flat = {key: data.pop(key) for key in FLAT_TRIGGER_KEYS if key in data}
    if not flat:
        return
    nested = data.get("summary_triggers")
    if isinstance(nested, BaseModel):
        nested = nested.model_dump()
    if nested is None:
        nested = {}
    if not isinstance(nested, Mapping):
        data.update(flat)  # the type error on summary_triggers is the one to report
        return
    policies = {
        policy: (value.model_dump() if isinstance(value, BaseModel) else value)
        for policy, value in nested.items()
    }
    for key, value in flat.items():
        policy, field = FLAT_TRIGGER_KEYS[key]
        current = policies.get(policy) or {}
        if not isinstance(current, Mapping):
            data.update(flat)
            return
        policies[policy] = {**current, field: value}
    data["summary_triggers"] = policies


class MemoryConfig(_Strict):
    """``supervisor.memory``: Orchid's keys with their defaults, plus longtalk's."""

    strategy: MemoryStrategy = "rag_augmented"
    summary_recent_turns: int = Field(10, ge=0, description="Exchanges kept verbatim.")
    summary_model: str | None = Field(None, description="None = the offline summarizer.")
    structured_output: bool = True
    persist_summary: bool = True
    summary_prompt: str | None = None
    rag_namespace: str = "__memory__"
    rag_k: int | Literal["auto"] = Field(
        "auto", description="Turns recall may return; auto fills the budget (Orchid: 5)."
    )
    rag_similarity_threshold: float = Field(
        0.0, ge=-1.0, description="Cosine-similarity floor, equal kept (Orchid: 0.5)."
    )
    rag_relevance_floor: float = Field(
        0.002,
        ge=0.0,
        le=1.0,
        description="A recalled turn less relevant than this share of the best one is left "
        "out, so turns that merely fill leftover room do not, unless it was said right "
        "before or after a turn that reaches it (0 = off).",
    )
    store_turns: bool = True
    truncation_strategy: TruncationName = "hard"
    truncation_max_chars: int = Field(1000, ge=1)
    # longtalk additions ---------------------------------------------------------------
    rag_ranking: Literal["learned", "weighted"] = Field(
        "learned",
        description="learned: the fitted ranker; weighted: a hand-set fusion of the scores.",
    )
    history_max_turns: int | None = Field(None, ge=1, description="Cap on verbatim turns.")
    summary_trigger: TriggerName = Field(
        "pending_tokens", description="Which policy of summary_triggers decides when to summarize."
    )
    summary_triggers: TriggerThresholds = Field(
        default_factory=TriggerThresholds,
        description="Each trigger policy's thresholds (the flat keys set them too).",
    )
    summary_row_max_tokens: int = Field(
        300, ge=50, description="A chain row past this closes; the next extension starts a row."
    )
    summary_max_tokens: int = Field(
        1600,
        ge=0,
        description="Size of the digest older rows are consolidated into; twice it caps the "
        "summary shown without a query (summary_no_query_max_tokens); with one, "
        "summary_query_max_tokens and summary_share cap it.",
    )
    summary_consolidate_tokens: int | None = Field(
        None,
        ge=1,
        description="Rows since the digest (the newest that fill the cap aside) past this "
        "are consolidated (None: four times summary_max_tokens).",
    )
    summary_consolidation: Literal["merge", "model"] = Field(
        "merge",
        description="How older rows become the digest: merge (structurally, no model call: "
        "every entity and kept list survives, the story keeps its opening and newest "
        "sentences) or model (the summary model rewrites them: one more call that re-reads "
        "every folded row).",
    )
    summary_no_query_max_tokens: int | None = Field(
        None,
        ge=0,
        description="Cap of the summary shown when no query brings recall: it takes what the "
        "recent window leaves, up to this (None: twice summary_max_tokens, the digest and the "
        "newest rows kept beside it, whole).",
    )
    summary_query_max_tokens: int = Field(
        200,
        ge=0,
        description="Cap of the summary part when a query brings recall (recall needs the "
        "room for the answer); without a query summary_no_query_max_tokens caps it.",
    )
    summary_share: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="The summary's most share of what the recent window leaves when a query "
        "brings recall; without a query it takes what the window leaves, up to its cap.",
    )
    resolve_dates: bool = Field(
        True,
        description="Follow a recalled turn that says 'yesterday', 'last year'... with the "
        "date it means (from the turn's own date).",
    )
    context_order: Literal["contract", "cache_friendly"] = Field(
        "contract",
        description="contract: [facts] [user] [recalled] [summary] [window]; cache_friendly: "
        "[facts] [user] [summary] [kept recalled block] [window] [recalled afresh], with the "
        "facts chosen by durability, the window's start moved in steps and the previous "
        "turn's recalled block kept while it serves, so a provider's prompt cache reuses more.",
    )
    summary_input_max_chars: int = Field(12000, ge=200)
    max_extensions_per_run: int = Field(8, ge=1)
    context_max_tokens: int = Field(4000, ge=50)
    facts_max_tokens: int = Field(
        150,
        ge=0,
        description="Most tokens of a context the chat's durable facts may take when a "
        "question is asked (what people said about themselves that outlives the moment); "
        "without one nothing is recalled and they may take all of facts_share.",
    )
    facts_share: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="The durable facts take at most this share of the budget; past it the "
        "least durable are left out first, and the context says how many.",
    )
    user_memory_tokens: int = Field(
        200,
        ge=0,
        description="Most tokens of a context that what is known about the chat's user from "
        "earlier chats may take (at most a quarter of the budget); 0 leaves it out.",
    )
    summary_retry_seconds: float = Field(
        5.0, gt=0, description="First backoff after a failed summary run; doubles per failure."
    )
    summary_retry_max_seconds: float = Field(
        300.0, gt=0, description="Most seconds a failing chat waits before its next try."
    )

    @model_validator(mode="before")
    @classmethod
    def _former_and_flat_keys(cls, data: Any) -> Any:
        """Read former key names and the flat trigger keys into the current layout."""
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        _read_former_keys(data)
        _nest_flat_triggers(data)
        return data

    @model_validator(mode="after")
    def _backoff_in_order(self) -> MemoryConfig:
        if self.summary_retry_max_seconds < self.summary_retry_seconds:
            raise ValueError(
                f"summary_retry_max_seconds ({self.summary_retry_max_seconds}) is below "
                f"summary_retry_seconds ({self.summary_retry_seconds}): the backoff's ceiling "
                "must be at least its first wait"
            )
        return self

    token_counter: str = Field("heuristic", description="heuristic or an encoding name.")
    chars_per_token: float = Field(4.0, gt=0)

    @property
    def no_query_summary_cap(self) -> int:
        """``summary_no_query_max_tokens``, or twice ``summary_max_tokens``."""
        if self.summary_no_query_max_tokens is not None:
            return self.summary_no_query_max_tokens
        return 2 * self.summary_max_tokens

    @property
    def consolidate_threshold(self) -> int:
        """``summary_consolidate_tokens``, or four times ``summary_max_tokens``."""
        return self.summary_consolidate_tokens or 4 * max(1, self.summary_max_tokens)


class SupervisorConfig(_Strict):
    """``supervisor``: the memory block and the legacy history toggles."""

    memory: MemoryConfig | None = None
    history_summary_enabled: bool | None = None
    history_summary_model: str | None = None
    history_summary_recent_turns: int | None = Field(None, ge=0)
    history_max_turns: int | None = Field(None, ge=1)
    history_max_chars: int | None = Field(None, ge=1)

    def effective_memory(self) -> MemoryConfig:
        """The memory settings with the legacy toggles mapped on; explicit new keys win."""
        memory = self.memory or MemoryConfig()
        explicit = memory.model_fields_set
        updates: dict[str, Any] = {}
        if self.history_summary_enabled is not None and "strategy" not in explicit:
            if not self.history_summary_enabled:
                updates["strategy"] = "none"
            elif self.memory is None:
                updates["strategy"] = "running_summary"
        legacy = {
            "summary_model": self.history_summary_model,
            "summary_recent_turns": self.history_summary_recent_turns,
            "history_max_turns": self.history_max_turns,
            "truncation_max_chars": self.history_max_chars,
        }
        for key, value in legacy.items():
            if value is not None and key not in explicit:
                updates[key] = value
        return memory.model_copy(update=updates) if updates else memory


class PromptSections(_Strict):
    """``agents[].prompt_sections``: per-agent prompt overrides (Orchid's names)."""

    summary_compression_system_prompt: str | None = None
    summary_compression_user_prompt: str | None = None
    summary_extension_user_prompt: str | None = None


class AgentConfig(BaseModel):
    """One entry of ``agents``; keys longtalk does not use belong to the host app."""

    model_config = ConfigDict(extra="allow")

    name: str
    prompt_sections: PromptSections = Field(default_factory=PromptSections)


class VectorsConfig(_Strict):
    """``vectors``: the vector store (None = Qdrant edge under the data directory)."""

    url: str | None = None
    embedder: str = "minilm"
    background_embedding: Literal["process", "thread"] | None = None


class LLMConfig(_Strict):
    """``llm``: how to reach the summary model."""

    base_url: str | None = None
    api_key_env: str | None = None
    timeout_seconds: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0)


_FORMER_LIMIT = "Sets limits.<same key> (for every door) unless that is set itself."


class LimitsConfig(_Strict):
    """``limits``: what every door (library, CLI, HTTP, MCP) lets into storage.

    Checked once, before anything is stored (``longtalk.core.limits``). The service's
    ``service.max_*`` keys of the same names set these too, unless set here.
    """

    max_message_chars: int = Field(DEFAULT_LIMITS.max_message_chars, ge=1)
    max_batch_size: int = Field(DEFAULT_LIMITS.max_batch_size, ge=1)
    max_id_chars: int = Field(
        DEFAULT_LIMITS.max_id_chars, ge=1, description="Chat, message and tool-call ids."
    )
    max_name_chars: int = Field(
        DEFAULT_LIMITS.max_name_chars, ge=1, description="Message names and chat users."
    )
    max_title_chars: int = Field(DEFAULT_LIMITS.max_title_chars, ge=1)
    max_metadata_bytes: int = Field(
        DEFAULT_LIMITS.max_metadata_bytes, ge=2, description="A message's metadata as JSON."
    )
    max_metadata_depth: int = Field(
        DEFAULT_LIMITS.max_metadata_depth, ge=1, description="Nesting of a message's metadata."
    )
    max_metadata_keys: int = Field(
        DEFAULT_LIMITS.max_metadata_keys, ge=0, description="Keys in a message's metadata."
    )
    max_tool_calls: int = Field(
        DEFAULT_LIMITS.max_tool_calls, ge=0, description="Tool-call ids on one message."
    )
    max_query_chars: int = Field(
        DEFAULT_LIMITS.max_query_chars, ge=1, description="A context request's query."
    )
    max_summary_chars: int = Field(
        DEFAULT_LIMITS.max_summary_chars, ge=1, description="A summary row's text."
    )


class ServiceConfig(_Strict):
    """``service``: the HTTP service."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    api_keys: dict[str, str] = Field(default_factory=dict, description="API key -> tenant.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names accepted besides loopback ones (keyless mode checks Host).",
    )
    max_body_bytes: int = Field(16_000_000, ge=1024, description="A request body's size.")
    keep_alive_seconds: int = Field(
        65,
        ge=1,
        description="An idle connection stays open this long: longer than clients and load "
        "balancers keep theirs, so none sends a request on a connection being closed.",
    )
    max_message_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_batch_size: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_id_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_name_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_title_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_metadata_bytes: int | None = Field(None, ge=2, description=_FORMER_LIMIT)
    max_metadata_depth: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_tool_calls: int | None = Field(None, ge=0, description=_FORMER_LIMIT)
    max_query_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    max_summary_chars: int | None = Field(None, ge=1, description=_FORMER_LIMIT)
    summary_workers: int = Field(2, ge=1)
    summary_retry_seconds: float = Field(5.0, gt=0)
    summary_retry_max_seconds: float = Field(300.0, gt=0, description="Backoff ceiling.")
    job_queue: Literal["auto", "local", "postgres"] = Field(
        "auto", description="auto: jobs leased in PostgreSQL when storage is PostgreSQL."
    )
    job_lease_seconds: float = Field(30.0, ge=1, description="A dead replica's jobs wait this.")
    job_poll_seconds: float = Field(2.0, gt=0, description="Idle workers look this often.")


class Settings(BaseSettings):
    """The whole configuration file.

    Constructing one reads only its arguments; :func:`load_settings` adds the environment.
    """

    model_config = SettingsConfigDict(
        extra="forbid",
        validate_assignment=True,
        validate_default=False,
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        case_sensitive=False,
    )

    supervisor: SupervisorConfig = Field(default_factory=SupervisorConfig)
    agents: list[AgentConfig] = Field(default_factory=list)
    storage: StorageConfig = Field(default_factory=StorageConfig)
    vectors: VectorsConfig = Field(default_factory=VectorsConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)

    @model_validator(mode="after")
    def _unique_agents(self) -> Settings:
        names = [agent.name for agent in self.agents]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"agent names must be unique, repeated: {duplicates}")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The arguments alone: the file and environment are merged by ``load_settings``."""
        return (init_settings,)

    @property
    def memory(self) -> MemoryConfig:
        """The effective memory settings (``service.summary_retry_*``, when set, included)."""
        memory = self.supervisor.effective_memory()
        moved: dict[str, Any] = {
            name: getattr(self.service, name)
            for name in ("summary_retry_seconds", "summary_retry_max_seconds")
            if name in self.service.model_fields_set
        }
        return memory.model_copy(update=moved) if moved else memory

    @property
    def input_limits(self) -> InputLimits:
        """Every door's input limits: ``limits.*``, with ``service.max_*`` where only it is set."""
        values = self.limits.model_dump()
        former: set[str] = set()
        for key in values:
            value = getattr(self.service, key, None)
            if value is not None and key not in self.limits.model_fields_set:
                values[key] = value
                former.add(key)
        return InputLimits(**values, overridden=frozenset(former))


def load_settings(
    path: str | Path | None = None, *, environ: Mapping[str, str] | None = None
) -> Settings:
    """Read ``agents.yaml`` (or nothing), apply environment overrides, validate."""
    data: dict[str, Any] = {}
    if path is not None:
        data = _read_yaml(Path(path))
    return parse_settings(with_environment(data, os.environ if environ is None else environ))


def parse_settings(data: Mapping[str, Any]) -> Settings:
    """Validate a mapping; errors name the key path, e.g. ``supervisor.memory.rag_k``."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        path = ".".join(str(part) for part in errors[0]["loc"]) or "(top level)"
        problems = [errors[0]["msg"]] + [
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors[1:]
        ]
        raise ConfigError("; ".join(problems), path=path) from None


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise ConfigError(
                f"the file is {size} bytes; a configuration file is at most {MAX_YAML_BYTES}",
                path=str(path),
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read the configuration file: {exc.strerror}", path=str(path)
        ) from exc
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", path=str(path)) from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {_yaml_problem(exc)}", path=str(path)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("the top level must be a mapping", path=str(path))
    return data


class YAMLTooLarge(yaml.YAMLError):
    """A document nested too deep or expanding (through aliases) to too many values."""


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` refusing documents that expand past ``MAX_YAML_NODES`` values.

    Aliases share one node, so a "billion laughs" document composes quickly but expands
    exponentially when anything walks it; its expanded size is counted before that.
    """

    def compose_document(self) -> Any:
        node = super().compose_document()
        if node is not None and _expanded_size(node, {}) > MAX_YAML_NODES:
            raise YAMLTooLarge(
                f"the document expands to over {MAX_YAML_NODES} values (aliases counted "
                "each time they are used)"
            )
        return node


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """Values under ``node`` with every alias expanded (memoized: aliases share nodes)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    sizes[id(node)] = MAX_YAML_NODES + 1  # a node inside itself expands without end
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded_size(child, sizes)
            if total > MAX_YAML_NODES:
                break
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            total += _expanded_size(key, sizes) + _expanded_size(value, sizes)
            if total > MAX_YAML_NODES:
                break
    sizes[id(node)] = total
    return total


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` with the size bounds (``YAMLError`` past them)."""
    try:
        return yaml.load(text, Loader=_BoundedLoader)  # a SafeLoader subclass
    except RecursionError:
        raise YAMLTooLarge("the document nests too deep") from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: the problem and where."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return f"{exc.problem} (line {mark.line + 1}, column {mark.column + 1})"
    return " ".join(str(exc).split())


def redacted(settings: Settings) -> dict[str, Any]:
    """The settings as JSON-ready data with secrets hidden.

    Every text value goes through :func:`longtalk.core.redact.redact` (URL passwords,
    key-like query parameters, wherever they are); API keys keep their first three
    characters.
    """
    data: dict[str, Any] = _redact_values(settings.model_dump(mode="json"))
    keys = settings.service.api_keys
    data["service"]["api_keys"] = {f"{key[:3]}{REDACTED}": tenant for key, tenant in keys.items()}
    return data


def _redact_values(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_values(item) for item in value]
    return value


NULLS = frozenset({"", "null", "Null", "NULL", "~"})
"""Environment values that unset a key (YAML's spellings of null, and empty)."""


class EnvironmentSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping, reading YAML flow values.

    ``LONGTALK_A__B__C`` becomes ``{"a": {"b": {"c": value}}}`` (prefix, delimiter and case
    from ``Settings.model_config``); a mapping or list value is parsed as YAML, so
    ``{key: tenant}`` works as well as JSON.
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(Settings)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {
            name.lower(): None if value.strip() in NULLS else value
            for name, value in self._environ.items()
        }

    def decode_complex_value(self, field_name: str, field: FieldInfo | None, value: Any) -> Any:
        """A YAML flow mapping or list (JSON is YAML too); else the text, refused by the model."""
        try:
            return load_yaml(value)
        except yaml.YAMLError:
            return value


def environment_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """The ``LONGTALK_*__*`` variables of ``environ`` as nested settings data.

    The former name's ``..._A__B__C`` spelling (``longtalk.legacy``) is read too while no
    ``LONGTALK_`` one is set. A variable naming no section is refused, as an unknown key in
    the file is.
    """
    current = legacy.with_former_env(environ)
    for name in current:
        section = name[len(ENV_PREFIX) :].split("__")[0].lower()
        nested = name.upper().startswith(ENV_PREFIX) and "__" in name
        if nested and section not in Settings.model_fields:
            raise ConfigError(f"{name} names no section of the settings", path=section)
    try:
        return EnvironmentSource(current)()
    except ValueError as exc:  # pydantic-settings' SettingsError is a ValueError
        problem = f"a LONGTALK_ variable is not readable: {exc}"
        raise ConfigError(problem, path="(environment)") from None


def with_environment(data: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """``data`` (a file's settings) with the environment's overrides laid over it."""
    return _overlay(dict(data), environment_overrides(environ))


def _overlay(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid over ``base`` key by key, nested mappings merged (a new dict)."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = _overlay(dict(below), value)
        else:
            merged[key] = value
    return merged
