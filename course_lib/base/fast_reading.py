"""Reading a committed line into a model in one step, for the lines that need no careful reading.

Why: opening a session file is mostly reading and validating its lines, and
a store reads every line of its file. ``jiter`` reads a line's bytes straight
(checking their UTF-8 as it goes) and refuses what the course refuses by
itself (a key given twice, NaN, Infinity, a lone surrogate); pydantic-core
then validates the dict it built without copying it. What neither sees is
checked on the way: numbers and depth inside free JSON values, by the schema's
``JsonValue`` rule, given how deep a free value may nest. Anything else, or
any doubt, returns ``None``, and the careful reader reads the line and names
the problem exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from jiter import from_json
from pydantic import BaseModel, Field, TypeAdapter

from .schema import fresh_json, is_free_json
from .wire import DEFAULT_LIMITS, JsonLimits

__all__ = ["FastLineReader", "free_json_nesting", "structure_depth"]


def free_json_nesting(annotation: Any, enclosing: int = 0) -> int:
    """How many objects and arrays enclose the deepest free JSON value a field so annotated holds.

    ``-1`` when it holds none. An entry's ``message.content[i].arguments``
    sits inside four (entry, message, content, block); a limit on a line's
    depth leaves its free values that many levels less.
    """
    origin = get_origin(annotation)
    if origin is Annotated:
        return free_json_nesting(get_args(annotation)[0], enclosing)
    if origin in (Union, UnionType):
        return max(free_json_nesting(argument, enclosing) for argument in get_args(annotation))
    if origin in (list, dict):
        return free_json_nesting(get_args(annotation)[-1], enclosing + 1)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        deepest = -1
        for info in annotation.model_fields.values():
            if is_free_json(info.metadata):
                deepest = max(deepest, enclosing + 1)
            else:
                deepest = max(deepest, free_json_nesting(info.annotation, enclosing + 1))
        return deepest
    return -1


def structure_depth(annotation: Any) -> int:
    """How many objects and arrays deep a value so annotated nests, free JSON values left out."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return structure_depth(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return max(structure_depth(argument) for argument in get_args(annotation))
    if origin in (list, dict):
        return 1 + structure_depth(get_args(annotation)[-1])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = annotation.model_fields.values()
        return 1 + max((structure_depth(info.annotation) for info in fields), default=0)
    return 0


def _parse(data: bytes) -> Any:
    """``jiter``'s reading with the course's refusals (NaN, Infinity, a key given twice).

    Only keys go through ``jiter``'s string cache: most values of an entry are
    long or unique (text, ids), and looking each one up made reading a store's
    file a tenth slower than not (``wire.loads_fast`` keeps the whole cache: pi's
    records repeat many short values, and gain nothing from leaving it).
    """
    return from_json(data, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys")


class FastLineReader:
    """Reads a line into one of ``models`` (told apart by ``tag``), or returns ``None``.

    ``None`` means "not sure": another kind of entry, a problem, or a line
    over the size limits. The careful reader decides those and names them.
    """

    def __init__(self, *models: type[BaseModel], tag: str = "type") -> None:
        union: Any = Union[models] if len(models) > 1 else models[0]  # noqa: UP007
        self._validator = TypeAdapter(Annotated[union, Field(discriminator=tag)]).validator
        self._enclosing = max(free_json_nesting(model) for model in models)
        self._structure = max(structure_depth(model) for model in models)
        self._plans: dict[JsonLimits, tuple[int, dict[str, Any] | None]] = {}
        self._default = self._plan(DEFAULT_LIMITS)
        self._validate = self._validator.validate_python

    def read_lines(
        self, lines: Sequence[str | bytes], limits: JsonLimits = DEFAULT_LIMITS
    ) -> list[Any | None]:
        """``[self(line, limits) for line in lines]`` in one call: a store reads every line of
        its file, so its limits are looked up once, not once per line."""
        longest, context = self._default if limits is DEFAULT_LIMITS else self._plan(limits)
        read = self._read
        return [read(line, longest, context) for line in lines]

    def _plan(self, limits: JsonLimits) -> tuple[int, dict[str, Any] | None]:
        """For ``limits``: the longest line read fast, and the validation context (``None``:
        the models themselves nest deeper than allowed, so no line is read fast)."""
        if limits not in self._plans:
            longest = min(limits.max_line_chars, 2 * limits.max_containers)  # 2 chars a container
            fits = limits.max_depth >= self._structure
            free_depth = max(0, limits.max_depth - self._enclosing)
            self._plans[limits] = (longest, fresh_json(free_depth) if fits else None)
        return self._plans[limits]

    def validate(self, value: dict[str, Any], *, schema_keys_only: bool = False) -> Any | None:
        """A dict just built from parsed JSON (an importer's draft) into its model, or ``None``.

        ``schema_keys_only``: the caller wrote every key from the schema's own
        names, so pydantic's search for unknown keys is skipped.
        """
        try:
            return self._validator.validate_python(
                value,
                by_alias=True,
                by_name=False,
                context=self._default[1],
                extra="ignore" if schema_keys_only else None,
            )
        except ValueError:
            return None

    def __call__(self, line: str | bytes, limits: JsonLimits = DEFAULT_LIMITS) -> Any | None:
        return self.read_lines([line], limits)[0]

    def _read(self, line: str | bytes, longest: int, context: dict[str, Any] | None) -> Any | None:
        if context is None or len(line) > longest:
            return None  # a size limit may be broken: the careful reader counts
        try:  # jiter's own nesting limit keeps its stack safe
            data = line if isinstance(line, bytes) else line.encode("utf-8")
            return self._validate(_parse(data), by_alias=True, by_name=False, context=context)
        except ValueError:  # pydantic's ValidationError is a ValueError too; so is a lone
            return None  # surrogate that ``encode`` refuses (UnicodeEncodeError)
