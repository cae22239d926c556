"""Snapshot saves: a state's own values in JSON, restored without replaying.

A snapshot (``State.to_json(key, snapshot=True)``) holds, beside the usual
envelope (game, rules, seed, setup, summary, digest, signature):

- ``class``: the state's class, ``module:qualname``;
- ``state``: every slot of the state but the game, the seed, the setup and
  the links, each value in a small tagged JSON form (below);
- ``links``: the items of the game's own links (``State._links`` beyond the
  history and the actions: what its observations list, such as every ask made
  so far), oldest first;
- ``history``: whether the history records (``_log``) held anything;
- ``log``: the integer actions, packed little-endian ``width`` bytes each and
  base64-encoded (read and written in time that barely grows with the match).

Loading sets the slots back and leaves the actions and the history **lazy**:
the actions are unpacked, and the history records rebuilt by replaying them
from the seed, only when something walks them (``state.history``,
``state.actions``). So a load costs about the same at step 30 and at step
3,000 (a game whose observations list the whole past keeps that list in
``links``, and its load grows with it, still without a replay).

The value form: JSON scalars as themselves, lists as lists, ``{"t": [...]}``
a tuple, ``{"d": [[key, value], ...]}`` a dict, ``{"rng": state}`` an
:class:`~fourcards.rng.Rng`, ``{"rules": 0}`` / ``{"game": 0}`` the game's
rules and the game, ``{"k": index}`` one of the game's constants
(``Game._snapshot_constants()``: a deck's cards), and any other object by its pickle reduction (``__reduce_ex__``):
``{"call": "module:name", "args": [...]}`` (a class or a class's method,
called with the arguments) or ``{"new": "module:name", "args": [...],
"state": ...}`` (``cls.__new__`` then its state set as pickle does). Names
are resolved only in modules already imported, of the game's own package (and
of the packages of the games it extends)
and of ``fourcards.engine``, ``fourcards.rng`` and ``fourcards.decks``, and
only to classes: no code is imported or called on a name from elsewhere.
A snapshot is accepted only signed (checked before any of this runs).
"""

from __future__ import annotations

import base64
import binascii
import copyreg
import dataclasses
import inspect
import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ._links import slot_names
from .errors import FourCardsError, InvalidStateError, InvalidTypeError
from .rng import MASK64, Rng

__all__ = ["snapshot_of", "restore", "snapshot_actions", "SnapshotCache"]

#: The modules besides a game's own package whose classes a snapshot may name.
_CORE_MODULES = frozenset({"fourcards.engine", "fourcards.rng", "fourcards.decks"})
#: Slots set from the envelope or the game, not stored in ``state``.
_FROM_ENVELOPE = frozenset({"game", "seed", "setup", "_n", "_n_actions", "_step"})
_DTYPES: dict[int, np.dtype[Any]] = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}


def _width(num_actions: int) -> int:
    """Bytes a packed action takes (1, 2 or 4) in a game of ``num_actions`` actions."""
    return 1 if num_actions <= 1 << 8 else 2 if num_actions <= 1 << 16 else 4


# -- the packed action log and the lazy links ---------------------------------------------------

class _Lazy:
    """A link ``(newest, older)`` of a restored state, made on first use.

    It indexes like the tuple it stands for, so :func:`fourcards.engine.unroll`,
    ``recent_history`` and pickling walk through it unchanged; clones share it."""

    __slots__ = ("_node", "_make", "_lock")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._node: Any = None
        self._make: Callable[[], Any] | None = make
        self._lock = threading.Lock()

    def resolve(self) -> Any:
        make = self._make
        if make is not None:
            with self._lock:
                if self._make is not None:
                    node = self._make()
                    if not isinstance(node, tuple) or len(node) != 2:
                        raise InvalidStateError("a snapshot's history could not be rebuilt by replaying its actions")
                    self._node, self._make = node, None
        return self._node

    def __getitem__(self, index: int) -> Any:
        return self.resolve()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.resolve())

    def __len__(self) -> int:
        return 2

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {'made' if self._make is None else 'not made yet'}>"


class _PackedActions(_Lazy):
    """The bottom of a restored state's ``_acts``: the packed actions (base64 text,
    decoded on first use), linked on first walk."""

    __slots__ = ("log", "width", "count", "_raw")

    def __init__(self, log: str, width: int, count: int) -> None:
        self.log, self.width, self.count = log, width, count
        self._raw: bytes | None = None
        super().__init__(self._link)

    @property
    def raw(self) -> bytes:
        """The packed actions (``count * width`` bytes)."""
        raw = self._raw
        if raw is None:
            try:
                raw = binascii.a2b_base64(self.log)
            except (binascii.Error, ValueError):
                raw = b""
            if len(raw) != self.count * self.width:
                raise InvalidStateError("saved snapshot has a 'log' that is not base64")
            self._raw = raw
        return raw

    def actions(self) -> list[int]:
        actions: list[int] = np.frombuffer(self.raw, dtype=_DTYPES[self.width]).tolist()
        return actions

    def _link(self) -> Any:
        node: Any = None
        for action in self.actions():
            node = (action, node)
        return node


class _Replay:
    """The history records of a snapshot: its match replayed from the seed, on first use."""

    __slots__ = ("game", "seed", "setup", "packed")

    def __init__(self, game: Any, seed: int, setup: dict[str, Any], packed: _PackedActions | None) -> None:
        self.game, self.seed, self.setup, self.packed = game, seed, setup, packed

    def history(self) -> Any:
        actions = [] if self.packed is None else self.packed.actions()
        try:
            replayed = self.game.replay(self.seed, actions, **self.setup)
        except Exception as error:  # a forged snapshot's actions (signed with the key) may fail anywhere
            raise InvalidStateError(f"a snapshot's history could not be rebuilt: {type(error).__name__}: "
                                    f"{error}") from None
        node = replayed._log
        return node.resolve() if isinstance(node, _Lazy) else node


def snapshot_actions(snapshot: dict[str, Any], num_actions: int) -> list[int]:
    """The integer actions of a snapshot's packed ``log`` (checked: base64, width, length)."""
    log, width, _count = _log_of(snapshot, num_actions)
    try:
        raw = base64.b64decode(log, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidStateError("saved snapshot has a 'log' that is not base64") from None
    actions: list[int] = np.frombuffer(raw, dtype=_DTYPES[width]).tolist()
    return actions


def _log_of(snapshot: dict[str, Any], num_actions: int) -> tuple[str, int, int]:
    """A snapshot's ``log`` text, the bytes an action takes and the number of actions, read
    from the text's length (decoding waits until the actions are needed)."""
    width = _width(num_actions)
    log = snapshot.get("log")
    if snapshot.get("width") != width or not isinstance(log, str) or not log.isascii() or len(log) % 4:
        raise InvalidStateError(f"saved snapshot has a malformed 'log' (base64, {width} bytes an action)")
    size = len(log) // 4 * 3 - (2 if log.endswith("==") else 1 if log.endswith("=") else 0)
    if size % width:
        raise InvalidStateError("saved snapshot has a 'log' cut in the middle of an action")
    return log, width, size // width


class SnapshotCache:
    """What the latest snapshot of one match encoded (its links' newest nodes with their
    encoded items and each item's JSON text, its actions' newest node with their packed
    bytes), so that the next snapshot of the same match, an action or a few later, encodes
    only what was added since: a host that saves after every action (the bundled server)
    pays for the new items, not for the whole past again. The links are immutable (a
    newer state links to the older nodes), so a node met again stands for the same items;
    a state of another lineage (one restored, or a clone that went another way) simply
    encodes everything."""

    __slots__ = ("links", "acts")

    #: A value no state holds, standing for the links in the envelope while it is written.
    SENTINEL = "\x00fourcards-snapshot-links\x00"

    def __init__(self) -> None:
        #: Each link's newest node, its items encoded, and their JSON texts (canonical: sorted
        #: keys; and as ``json.dumps`` writes them), each item encoded once.
        self.links: dict[str, tuple[Any, list[Any], list[str], list[str]]] = {}
        self.acts: tuple[Any, bytes] | None = None

    def links_json(self, names: Iterable[str], canonical: bool) -> str:
        """The ``links`` of the latest snapshot as JSON (compact; ``canonical``: sorted keys,
        as the digest covers them; else in order, as ``json.dumps`` writes the envelope),
        built from the items' texts."""
        which = 2 if canonical else 3
        order = sorted(names) if canonical else list(names)
        return "{" + ",".join(f"{json.dumps(name)}:[{','.join(self.links[name][which])}]" for name in order) + "}"


def _packed_log(state: Any, width: int, cache: SnapshotCache | None = None) -> bytes:
    """The state's actions packed, reusing a restored state's packed bottom (only the
    actions applied since it was restored are packed here), or what ``cache`` packed."""
    newer: list[int] = []
    node = state._acts
    known = cache.acts if cache is not None else None
    base = b""
    while node is not None:
        if known is not None and node is known[0]:
            base = known[1]
            break
        if isinstance(node, _PackedActions):
            base = node.raw
            break
        newer.append(node[0])
        node = node[1]
    newer.reverse()
    raw = bytes(base + np.asarray(newer, dtype=_DTYPES[width]).tobytes()) if newer else bytes(base)
    if cache is not None:
        cache.acts = (state._acts, raw)
    return raw


def _encoded_link(codec: _Codec, head: Any, name: str, cache: SnapshotCache | None) -> list[Any]:
    """The items of the link ``head`` (a state's own link ``name``), oldest first, encoded:
    only the ones newer than what ``cache`` encoded when it knows an older node of it."""
    known = cache.links.get(name) if cache is not None else None
    newer: list[Any] = []
    node = head
    base: list[Any] = []
    sorted_texts: list[str] = []
    texts: list[str] = []
    while node is not None:
        if known is not None and node is known[0]:
            base, sorted_texts, texts = known[1], known[2], known[3]
            break
        newer.append(node[0])
        node = node[1]
    added = [codec.encode(item) for item in reversed(newer)]
    if cache is not None:
        cache.links[name] = (head, base + added,
                             sorted_texts + [json.dumps(item, sort_keys=True, separators=(",", ":")) for item in added],
                             texts + [json.dumps(item, separators=(",", ":")) for item in added])
    return base + added


# -- the values ---------------------------------------------------------------------------------

def _package(cls: type) -> str:
    """The package of the module that defines ``cls`` (a top-level module: itself)."""
    module = cls.__module__
    return module.rpartition(".")[0] or module


_PER_CLASS: dict[tuple[str, type], Any] = {}
"""What the helpers below worked out once for a class (classes are few, and never change)."""


def _of_class(what: str, cls: type, make: Callable[[type], Any]) -> Any:
    key = (what, cls)
    found = _PER_CLASS.get(key, _PER_CLASS)
    if found is _PER_CLASS:
        found = _PER_CLASS[key] = make(cls)
    return found


def _packages(game_class: type) -> frozenset[str]:
    """The packages a snapshot of ``game_class``'s states may name classes of: those of the
    game class and of the game classes it extends (a game built on another's)."""
    found: frozenset[str] = _of_class("packages", game_class, lambda cls: frozenset(
        _package(k) for k in cls.__mro__ if k.__module__ not in ("builtins", "abc", "typing", "fourcards.engine")))
    return found


def _allowed(module: str, packages: frozenset[str]) -> bool:
    return module in _CORE_MODULES or any(module == p or module.startswith(p + ".") for p in packages)


def _name_of(obj: Any, packages: frozenset[str]) -> str:
    """``module:qualname`` of a class, or of a method of a class (class or static), that may be named."""
    if isinstance(obj, type):
        module, name = obj.__module__, obj.__qualname__
    elif inspect.ismethod(obj) and isinstance(obj.__self__, type):
        module, name = obj.__self__.__module__, f"{obj.__self__.__qualname__}.{obj.__name__}"
    elif inspect.isfunction(obj) and "." in obj.__qualname__ and "<" not in obj.__qualname__:
        module, name = obj.__module__, obj.__qualname__
    else:
        raise InvalidTypeError(f"a snapshot names classes and their methods only, not {obj!r}")
    if not _allowed(module, packages):
        raise InvalidTypeError(f"a snapshot of a state of {sorted(packages)} cannot name {module}.{name}")
    return f"{module}:{name}"


_RESOLVED: dict[tuple[str, frozenset[str]], tuple[Any, Any]] = {}
"""Names resolved before, with their module object (a module imported again misses)."""


def _resolve(name: Any, packages: frozenset[str]) -> Any:
    """The class, or method of a class, a snapshot names: only in an allowed module already
    imported; no name with dunder parts, no module-level function."""
    if type(name) is not str:
        raise InvalidStateError(f"saved snapshot names {name!r:.80}, not a module:class")
    key = (name, packages)
    hit = _RESOLVED.get(key)
    if hit is not None and sys.modules.get(hit[0].__name__) is hit[0]:
        return hit[1]
    if name.count(":") != 1:
        raise InvalidStateError(f"saved snapshot names {name!r:.80}, not a module:class")
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name)
    if module is None or not _allowed(module_name, packages):
        raise InvalidStateError(f"saved snapshot names {name!r:.80}, outside the game's modules")
    value = _resolve_in(module, qualname, name)
    if len(_RESOLVED) > 1024:
        _RESOLVED.clear()
    _RESOLVED[key] = (module, value)
    return value


def _resolve_in(module: Any, qualname: str, name: str) -> Any:
    """What ``qualname`` names in ``module`` (a module object: a module imported again is another key)."""
    owner: Any = None
    value: Any = module
    for part in qualname.split("."):
        if not part or part.startswith("_"):
            raise InvalidStateError(f"saved snapshot names {name!r:.80}")
        owner, value = value, getattr(value, part, None)
    if isinstance(value, type) or (isinstance(owner, type) and (
            (inspect.ismethod(value) and value.__self__ is owner) or inspect.isfunction(value))):
        return value
    raise InvalidStateError(f"saved snapshot names {name!r:.80}, which is not a class of the game or its method")


class _Codec:
    """The tagged JSON form of a state's values (see the module docstring)."""

    def __init__(self, game: Any) -> None:
        self.game, self.packages = game, _packages(type(game))
        self.constants = tuple(game._snapshot_constants())
        self._places: dict[int, int] | None = None

    def place(self, value: Any) -> int | None:
        """The index of ``value`` among the game's constants (by identity), or None."""
        if self._places is None:
            self._places = {id(v): i for i, v in enumerate(self.constants)}
        index = self._places.get(id(value))
        return index if index is not None and self.constants[index] is value else None

    def encode(self, value: Any) -> Any:
        kind = type(value)
        if kind is int or kind is str or kind is bool or kind is float or value is None:
            return value
        if kind is list:
            return [self.encode(v) for v in value]
        if kind is tuple:
            return {"t": [self.encode(v) for v in value]}
        if kind is dict:
            return {"d": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if kind is Rng:
            return {"rng": value.state}
        if value is self.game.rules:
            return {"rules": 0}
        if value is self.game:
            return {"game": 0}
        if self.constants:
            index = self.place(value)
            if index is not None:
                return {"k": index}
        reduced = value.__reduce_ex__(4)
        if isinstance(reduced, str) or len(reduced) < 2 or any(item is not None for item in reduced[3:]):
            raise InvalidTypeError(f"cannot snapshot {kind.__qualname__}: its pickle form is not a call with a state")
        make, args = reduced[0], reduced[1]
        state = reduced[2] if len(reduced) > 2 else None
        if make is copyreg.__newobj__:  # type: ignore[attr-defined]
            data: dict[str, Any] = {"new": _name_of(args[0], self.packages),
                                    "args": [self.encode(a) for a in args[1:]]}
        else:
            data = {"call": _name_of(make, self.packages), "args": [self.encode(a) for a in args]}
        if state is not None:
            data["state"] = self.encode(state)
        return data

    def decode(self, data: Any) -> Any:
        if data is None or type(data) in (int, str, bool, float):
            return data
        if type(data) is list:
            return [self.decode(v) for v in data]
        if type(data) is not dict or len(data) not in (1, 2, 3):
            raise InvalidStateError(f"saved snapshot holds a value it cannot read: {data!r:.80}")
        if "t" in data:
            return tuple(self.decode(v) for v in self._list(data["t"]))
        if "d" in data:
            return {self.decode(k): self.decode(v) for k, v in (self._pair(p) for p in self._list(data["d"]))}
        if "rng" in data:
            if type(data["rng"]) is not int or not 0 <= data["rng"] <= MASK64:
                raise InvalidStateError("saved snapshot has a malformed generator state")
            return Rng.from_state(data["rng"])
        if "rules" in data:
            return self.game.rules
        if "game" in data:
            return self.game
        if "k" in data:
            index = data["k"]
            if type(index) is not int or not 0 <= index < len(self.constants):
                raise InvalidStateError(f"saved snapshot names constant {index!r:.40} of {len(self.constants)}")
            return self.constants[index]
        args = [self.decode(a) for a in self._list(data.get("args", []))]
        if "new" in data:
            cls = _resolve(data["new"], self.packages)
            if not isinstance(cls, type):
                raise InvalidStateError(f"saved snapshot names {data['new']!r:.80}, which is not a class")
            value = cls.__new__(cls, *args)
        elif "call" in data:
            value = _resolve(data["call"], self.packages)(*args)
        else:
            raise InvalidStateError(f"saved snapshot holds a value it cannot read: {data!r:.80}")
        if "state" in data:
            _set_state(value, self.decode(data["state"]))
        return value

    @staticmethod
    def _list(value: Any) -> list[Any]:
        if type(value) is not list:
            raise InvalidStateError(f"saved snapshot has {value!r:.80} where a list belongs")
        return value

    @staticmethod
    def _pair(value: Any) -> list[Any]:
        if type(value) is not list or len(value) != 2:
            raise InvalidStateError(f"saved snapshot has {value!r:.80} where a key and a value belong")
        return value


def _dataclass_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a dataclass with slots whose ``__setstate__`` is the dataclasses
    module's (it sets each field from a list, in order), else None."""
    found: tuple[str, ...] | None = _of_class("fields", cls, _fields_of)
    return found


def _fields_of(cls: type) -> tuple[str, ...] | None:
    setstate = getattr(cls, "__setstate__", None)
    if getattr(setstate, "__qualname__", "") != "_dataclass_setstate" or not dataclasses.is_dataclass(cls):
        return None
    return tuple(f.name for f in dataclasses.fields(cls))


def _set_state(obj: Any, state: Any) -> None:
    """Set a restored object's state as pickle does (``__setstate__``, else its dict and slots)."""
    if type(state) is list:
        names = _dataclass_fields(type(obj))
        if names is not None and len(names) == len(state):  # what dataclasses' __setstate__ does, faster
            for name, value in zip(names, state):
                object.__setattr__(obj, name, value)
            return
    setstate = getattr(obj, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    if slots:
        for name, value in slots.items():
            object.__setattr__(obj, name, value)


# -- saving and loading ---------------------------------------------------------------------------

def _layout(cls: type) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...], bool]:
    """A state class's stored slots (in order), the same as a set, its own links (not
    ``_log`` nor ``_acts``), and whether its instances have a ``__dict__``."""
    found: tuple[tuple[str, ...], frozenset[str], tuple[str, ...], bool] = _of_class("layout", cls, _layout_of)
    return found


def _layout_of(cls: Any) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...], bool]:
    links = tuple(cls._links)
    stored = tuple(n for n in slot_names(cls) if n not in _FROM_ENVELOPE and n not in links)
    has_dict = any("__slots__" not in vars(klass) for klass in cls.__mro__ if klass is not object)
    return stored, frozenset(stored), tuple(sorted(set(links) - {"_log", "_acts"})), has_dict


def snapshot_of(state: Any, cache: SnapshotCache | None = None) -> dict[str, Any]:
    """The ``snapshot`` field of ``state``'s envelope (``cache``: see :class:`SnapshotCache`)."""
    cls = type(state)
    game = state.game
    codec = _Codec(game)
    stored, _, own_links, _ = _layout(cls)
    values: dict[str, Any] = {}
    for name in stored:
        if hasattr(state, name):
            values[name] = codec.encode(getattr(state, name))
    for name, value in getattr(state, "__dict__", {}).items():
        values[name] = codec.encode(value)
    width = _width(game.num_distinct_actions)
    raw = _packed_log(state, width, cache)
    if len(raw) != width * state.step:
        raise FourCardsError(f"the state's log holds {len(raw) // width} actions at step {state.step}")
    return {
        "class": _name_of(cls, codec.packages),
        "state": values,
        "links": {name: _encoded_link(codec, getattr(state, name), name, cache) for name in own_links},
        "history": state._log is not None,
        "width": width,
        "log": base64.b64encode(raw).decode("ascii"),
    }


def _always_set(cls: type, game: Any) -> frozenset[str]:
    """The stored slots every state of ``cls`` has a value for: those of a new match of
    ``game`` (when it is one of ``cls``), so that a snapshot lacking one is refused on
    load rather than failing later with an AttributeError."""
    try:  # per class and rules: a state may set a slot under some rules only
        key = (cls, type(game), json.dumps(game.rules_dict(), sort_keys=True, default=repr))
    except Exception:  # rules that are not JSON: check nothing rather than refuse
        return frozenset()
    found = _ALWAYS_SET.get(key)
    if found is None:
        try:
            fresh = game.new_match(0)
        except Exception:  # a plug-in whose new match needs more: nothing to compare with
            fresh = None
        found = frozenset(name for name in _layout(cls)[0] if hasattr(fresh, name)) if type(fresh) is cls \
            else frozenset()
        if len(_ALWAYS_SET) < 1024:
            _ALWAYS_SET[key] = found
    return found


#: :func:`_always_set`'s answers, by state class, game class and rules (bounded).
_ALWAYS_SET: dict[tuple[type, type, str], frozenset[str]] = {}


def restore(game: Any, data: dict[str, Any], state_base: type) -> Any:
    """The state a checked, signed snapshot envelope holds (a ``state_base``): its values
    set back, its own links rebuilt, its actions and history records left lazy."""
    snapshot = data["snapshot"]
    cls = _resolve(snapshot.get("class"), _packages(type(game)))
    if not (isinstance(cls, type) and issubclass(cls, state_base)):
        raise InvalidStateError(f"saved snapshot names {snapshot.get('class')!r:.80}, which is not a state class")
    values, links, history = snapshot.get("state"), snapshot.get("links"), snapshot.get("history")
    if type(values) is not dict or type(links) is not dict or type(history) is not bool:
        raise InvalidStateError("saved snapshot has a malformed 'state', 'links' or 'history'")
    _, slots, own_links, has_dict = _layout(cls)
    unknown = set() if has_dict else values.keys() - slots
    if unknown or sorted(links) != list(own_links) or not all(type(v) is list for v in links.values()):
        raise InvalidStateError(f"saved snapshot does not fit {cls.__qualname__} (slots {sorted(unknown)[:5]}, "
                                f"links {sorted(links)[:5]})")
    missing = _always_set(cls, game) - values.keys()
    if missing:
        raise InvalidStateError(f"saved snapshot does not fit {cls.__qualname__} (no value for "
                                f"{sorted(missing)[:5]})")
    log, width, count = _log_of(snapshot, game.num_distinct_actions)
    codec = _Codec(game)
    state: Any = object.__new__(cls)
    state.game, state.seed, state.setup = game, data["seed"], data["setup"]
    state._n, state._n_actions = game.num_players, game.num_distinct_actions
    state._step = count
    packed = _PackedActions(log, width, count) if count else None
    state._acts = packed
    try:
        for name, value in values.items():
            setattr(state, name, codec.decode(value))
        for name, items in links.items():
            node: Any = None
            for item in items:
                node = (codec.decode(item), node)
            setattr(state, name, node)
    except InvalidStateError:
        raise
    except RecursionError:
        raise InvalidStateError("saved snapshot is nested too deeply") from None
    except Exception as error:  # a class's __new__ or __setstate__ refusing what it was given
        raise InvalidStateError(f"saved snapshot holds a value it cannot read: {type(error).__name__}: "
                                f"{error}") from None
    state._log = _Lazy(_Replay(game, data["seed"], data["setup"], packed).history) if history else None
    try:
        same = state.summary() == data["summary"]
    except Exception as error:  # a state restored wrong fails anywhere: refuse it, as a replay would
        raise InvalidStateError(f"saved snapshot does not restore: {type(error).__name__}: {error}") from None
    if not same:
        raise InvalidStateError("saved snapshot's state does not match its summary")
    return state
