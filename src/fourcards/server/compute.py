"""The server's CPU for table work: bot turns first, hints under a budget of their own.

A bot seat's turn is part of a match everybody at that table waits for; a hint
is a courtesy to one seat. :class:`Compute` keeps them apart:

- **bot turns** run on a pool of their own (``submit``: it is the
  ``Executor`` every table master is given); a table's turn goes through
  :meth:`Compute.bot_turn`, which lets the tables of one creator (a client
  address) hold at most half the bot threads, waiting or running: a client's
  twenty tables of costly bots slow its own tables, and the other clients'
  bot turns find a thread free;
- **hints** run on ``Limits.hint_workers`` threads of their own (1, at a lower
  scheduling priority than the rest of the server where the system allows), each a
  search of at most ``Limits.hint_seconds`` (0.05 s; less when the game's best bot
  takes less by default), and only when no bot turn is waiting for a worker and
  a core is free of bot work: a hint never goes ahead of a bot turn;
- server-wide, hints may use ``Limits.hint_share`` cores on average (0.5):
  a budget of CPU seconds, refilled at that rate and charged with each hint's
  measured thread time; at most ``Limits.hint_queue`` hints wait (16). A hint
  that finds the budget spent or the queue full is refused (``busy``, with
  ``retry_after``); each seat has its own rate too (``Limits.hint_rate``,
  checked by :class:`~fourcards.server.admission.Admission`) and one hint at a
  time.

The hint's player comes from the registry (:func:`hint_player`): the game's
``best`` bot kind, given ``time_per_move=Limits.hint_seconds`` when it takes a
time budget (a search bot), built without options when it does not (a rule
bot, which is cheap anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from ..engine import Bot, Game
from ..errors import FourCardsError
from ..games import BEST, GameEntry
from .admission import Limits, TokenBucket
from .protocol import ProtocolError

__all__ = ["Compute", "hint_player"]

T = TypeVar("T")

_POLL = 0.005
"""Seconds between two looks, while a hint waits for the bots to leave a core free."""


def hint_player(entry: GameEntry, game: Game[Any], seed: int, seconds: float) -> Bot:
    """The game's ``best`` bot for a hint: a search bot searches ``seconds``, or its own default
    budget when that is shorter (a search measured strong at its own default: a hint
    searching longer would cost more CPU for little stronger advice); a bot that takes no
    time budget (a rule bot) is built without options."""
    own = entry.new_bot(BEST, game, seed=seed)
    budget = getattr(own, "time_per_move", None)
    if getattr(own, "iterations", None) is None and isinstance(budget, (int, float)) and 0 < budget <= seconds:
        return own
    try:
        return entry.new_bot(BEST, game, seed=seed, time_per_move=seconds)
    except FourCardsError:  # a kind that takes no options
        return own


class Compute(Executor):
    """Bot turns (``submit``, an ``Executor``) and hints (:meth:`hint`) on threads of their own.

    ``bot_workers``: threads for bot turns (default: the cores, 2 to 8)."""

    def __init__(self, limits: Limits, bot_workers: int | None = None) -> None:
        self.limits = limits
        cores = os.cpu_count() or 2
        self.cores = cores
        self.bot_workers = bot_workers or max(2, min(8, cores))
        self.bots = ThreadPoolExecutor(max_workers=self.bot_workers, thread_name_prefix="fourcards-bot")
        self.hints = ThreadPoolExecutor(max_workers=limits.hint_workers, thread_name_prefix="fourcards-hint",
                                        initializer=_yield_to_others)
        self._lock = threading.Lock()
        self._bots_waiting = 0  # bot jobs submitted, not started
        self._bots_running = 0
        #: CPU seconds the hints may spend: refilled at ``hint_share`` a second.
        self.budget = TokenBucket(limits.hint_share, max(4 * limits.hint_seconds, 2 * limits.hint_share))
        self._hints_waiting = 0
        self._hints_running = 0
        self._in_flight: set[Hashable] = set()
        #: Bot turns each creator may have in the pool at once (waiting or running).
        self.per_owner = max(1, self.bot_workers // 2)
        self._owners: dict[Hashable, tuple[asyncio.Semaphore, int]] = {}  # a share, and the turns using it
        self.hints_done = 0
        self.hints_refused = 0

    # -- bot turns: the Executor interface -------------------------------------------------------------
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._lock:
            self._bots_waiting += 1

        started = False

        def run() -> T:
            nonlocal started
            with self._lock:
                started = True
                self._bots_waiting -= 1
                self._bots_running += 1
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self._bots_running -= 1

        def cancelled(future: Future[T]) -> None:  # a turn cancelled before it ran (its table closed)
            if future.cancelled():
                with self._lock:
                    if not started:
                        self._bots_waiting -= 1

        try:
            future = self.bots.submit(run)
        except BaseException:
            with self._lock:
                self._bots_waiting -= 1
            raise
        future.add_done_callback(cancelled)
        return future

    async def bot_turn(self, owner: Hashable | None, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` (a bot's turn at a table ``owner`` created) on the bot threads, once
        fewer than :attr:`per_owner` turns of that owner are in the pool (None: no share)."""
        loop = asyncio.get_running_loop()
        if owner is None:
            return await loop.run_in_executor(self, fn, *args)
        share, users = self._owners.get(owner) or (asyncio.Semaphore(self.per_owner), 0)
        self._owners[owner] = (share, users + 1)
        try:
            async with share:
                return await loop.run_in_executor(self, fn, *args)
        finally:
            share, users = self._owners[owner]
            if users == 1:
                del self._owners[owner]
            else:
                self._owners[owner] = (share, users - 1)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.bots.shutdown(wait=wait, cancel_futures=cancel_futures)
        self.hints.shutdown(wait=wait, cancel_futures=cancel_futures)

    def bots_busy(self) -> bool:
        """Whether a bot turn waits for a worker, or bot turns use every core."""
        with self._lock:
            return self._bots_waiting > 0 or self._bots_running >= self.cores

    # -- hints -----------------------------------------------------------------------------------------
    def _busy(self, reason: str, message_id: str | None, retry_after: float) -> ProtocolError:
        self.hints_refused += 1
        return ProtocolError("busy", reason, message_id, details={"retry_after": round(max(0.1, retry_after), 2)})

    async def hint(self, key: Hashable, fn: Callable[..., T], *args: Any, message_id: str | None = None) -> T:
        """Run ``fn(*args)`` (a hint's search for the seat ``key``) under the hint budget: after
        every waiting bot turn, on the hint threads, at most one at a time for one seat.
        Refused with ``busy`` (the budget spent, too many waiting) or ``rate_limited`` (this
        seat's hint is still being computed)."""
        limits = self.limits
        if key in self._in_flight:
            self.hints_refused += 1
            raise ProtocolError("rate_limited", "this seat's last hint is still being computed", message_id,
                                details={"retry_after": limits.hint_seconds})
        if self._hints_waiting + self._hints_running >= limits.hint_queue + limits.hint_workers:
            raise self._busy(f"{limits.hint_queue} hints are waiting already: ask again in a moment", message_id,
                             limits.hint_seconds * limits.hint_queue / limits.hint_workers)
        if not self.budget.take(limits.hint_seconds):
            raise self._busy(f"the server's hints may use {limits.hint_share:g} cores and have for now: ask again "
                             "in a moment", message_id, self.budget.wait(limits.hint_seconds))
        self._in_flight.add(key)
        self._hints_waiting += 1
        waiting = True
        try:
            deadline = time.monotonic() + max(2.0, 40 * limits.hint_seconds)
            while self._hints_running >= limits.hint_workers or self.bots_busy():
                if time.monotonic() > deadline:
                    self.budget.tokens += limits.hint_seconds  # not spent
                    raise self._busy("the bots keep every core busy: ask again in a moment", message_id, 1.0)
                await asyncio.sleep(_POLL)
            self._hints_waiting -= 1
            waiting = False
            self._hints_running += 1
            try:
                spent, result = await asyncio.get_running_loop().run_in_executor(self.hints, _timed, fn, args)
            finally:
                self._hints_running -= 1
            # Charged with what it really took (its thread's CPU time), not what was reserved.
            self.budget.tokens += limits.hint_seconds - spent
            self.hints_done += 1
            return result
        finally:
            if waiting:
                self._hints_waiting -= 1
            self._in_flight.discard(key)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            bots = {"waiting": self._bots_waiting, "running": self._bots_running}
        return {"bots": bots, "hints": {"waiting": self._hints_waiting, "running": self._hints_running,
                                        "done": self.hints_done, "refused": self.hints_refused,
                                        "budget_seconds": round(self.budget.tokens, 3)}}


HINT_NICENESS = 10
"""How much lower the hint threads' scheduling priority is than the server's (Linux: a thread's own nice)."""


def _yield_to_others() -> None:
    """A hint thread asks the system to run it after the server's other threads (the event loop,
    the bots) when they want a core: its niceness raised by :data:`HINT_NICENESS` (Linux; elsewhere
    nothing changes)."""
    set_priority = getattr(os, "setpriority", None)
    native_id = getattr(threading, "get_native_id", None)
    if set_priority is None or native_id is None:
        return
    with contextlib.suppress(OSError):
        set_priority(os.PRIO_PROCESS, native_id(), os.getpriority(os.PRIO_PROCESS, 0) + HINT_NICENESS)


def _timed(fn: Callable[..., T], args: tuple[Any, ...]) -> tuple[float, T]:
    """``fn(*args)`` and the CPU time this thread spent on it."""
    began = time.thread_time()
    result = fn(*args)
    return time.thread_time() - began, result
