"""The terminal tables every game draws itself with, and the session around them.

:class:`Table` draws any game from the engine contract alone (the records'
text, the seat's view, the legal actions numbered; a choice's number or an
action's text is accepted); a game draws itself better with a subclass (its
``terminal.py``, named by its registry entry). :class:`Session` does the rest
the same way for every game: bots' turns (one at a time with ``pause``), the
prompt with line editing and history (readline where it exists), ``help``,
``rules``, ``hint`` (from an adviser bot), ``list``, ``hand``, ``save FILE``,
``quit``, and saving on quit, Ctrl-D and Ctrl-C when a save path is given.

This module sits below the games: it knows the engine contract, never the
registry or a game (``fourcards.cli`` opens tables and seats bots from the
registry).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..engine import Bot
from .._words import plural
from ..errors import FourCardsError
from .args import overwrite_problem, quote

__all__ = ["Table", "DeckTable", "Session", "Confirm", "plural", "in_player_words", "draw_view", "MAX_LINE"]

#: The longest line a person's input may be; longer lines are refused without echoing them whole.
MAX_LINE = 200


class Confirm(Exception):
    """Raised by :meth:`Table.act`: ask ``question`` (yes/no) before ``then`` acts."""

    def __init__(self, question: str, then: Callable[[], None]) -> None:
        super().__init__(question)
        self.question, self.then = question, then


_CONTEXT = re.compile(r" \((?:round|hands?|piles) [^()]*\)$")
_MAY_NOT = re.compile(r"^player \d+ may not '(.*?)': (.*)$", re.S)
_THEY = [("they do not", "you do not"), ("they hold", "you hold"), ("they have", "you have"),
         ("their", "your"), ("they ", "you ")]


def in_player_words(message: str, verb: str = "play") -> str:
    """An engine's error as the person at seat 0 reads it: without the state's
    summary, in the second person ("You may not discard RA: you hold no RA")."""
    message = _CONTEXT.sub("", message)
    match = _MAY_NOT.match(message)
    if not match:
        return message
    action, reason = match.groups()
    for old, new in _THEY:
        reason = reason.replace(old, new)
    words = action.split(" ", 1)
    if words[0] not in ("pass", "discard", "claim", "hu", "ask", "call", "give", "make"):
        action = f"{verb} {action}"
    return f"You may not {action}: {reason}"


class Table:
    """One game's face in the terminal (the person sits at seat :attr:`you`;
    -1 when nobody does, as in ``fourcards demo``).

    This class draws any game from the engine contract alone: records by
    :meth:`~fourcards.engine.Game.record_text`, the seat's view
    (:meth:`~fourcards.engine.State.view`) one line a field, and the legal
    actions numbered; a line is a number from that list or an action's text.
    A game draws itself better with a subclass named by its registry entry
    (``terminal="package.terminal:MyTable"``), overriding what it needs:
    :meth:`show`, :meth:`status`, :meth:`choices`, :meth:`act`, :meth:`typed`,
    the help texts, and the command line (:attr:`option_help`,
    :meth:`add_arguments`, :meth:`check_rules`, :meth:`extra_commands`)."""

    #: The game's name in :mod:`fourcards.games` (a subclass sets it; the generic table takes the state's).
    game = ""
    #: What the person may type in this game (lines for ``help``).
    commands = """\
  3              take choice 3 of the list
  TEXT           an action as the list shows it (e.g. pass)"""
    #: The rules in a few lines (the end of ``help``; default: the game's docstring's first paragraph).
    short_rules = ""
    #: The rules in full (``rules``; default: the game's docstrings).
    rules = ""
    #: The verb of an action in messages ("You may not play G3: ...").
    action_verb = "play"
    #: The bot kind ``fourcards demo`` seats and ``fourcards play`` plays against by default
    #: (None: the game's best bot that can run here).
    default_bot: str | None = None
    #: Help texts of the game's rule options by field name (else a generic text).
    option_help: dict[str, str] = {}
    #: Options of the game's bots by kind, for the opponents of ``fourcards play`` and ``fourcards demo``.
    bot_options: dict[str, dict[str, Any]] = {}
    #: Options of the game's bots by kind, for the adviser behind ``hint``.
    hint_options: dict[str, dict[str, Any]] = {}
    #: How many numbered choices :meth:`choices` lists at most (the others are still accepted).
    max_choices = 40

    def __init__(self, state: Any, colour: bool = False, you: int = 0) -> None:
        self.state, self.colour, self.you = state, colour, you
        game = state.game
        if not self.game:
            self.game = game.name
        #: The game's title for people (whoever opens the table may set the registry's).
        self.title: str = type(game).title or game.name.replace("-", " ").title()
        if not self.short_rules:
            self.short_rules = _first_paragraph(type(game).__doc__) or f"{self.title}: see 'rules'."
        if not self.rules:
            self.rules = _rules_text(type(game))

    def who(self, seat: int) -> str:
        return "You" if seat == self.you else f"P{seat}"

    def verb(self, seat: int, verb: str, third: str | None = None) -> str:
        """``You discard`` / ``P2 discards`` (at the start of a line)."""
        return f"{self.who(seat)} {verb if seat == self.you else (third or verb + 's')}"

    def subject(self, seat: int, verb: str, third: str | None = None) -> str:
        """``you start`` / ``P2 starts`` (within a sentence)."""
        return self.verb(seat, verb, third).replace("You ", "you ", 1)

    # -- what the screen shows ----------------------------------------------------------------------
    def intro(self) -> list[str]:
        """The lines shown once, before the first turn."""
        n = self.state.game.num_players
        others = "solitaire" if n == 1 else f"you are P{self.you} against {plural(n - 1, 'bot')}"
        return [f"{self.title}, seed {self.state.seed}: {others}. Type a choice's number or the action's text; "
                "'help' explains, 'quit' stops."]

    def demo_title(self, bot: str) -> str:
        """The first line of ``fourcards demo`` (after the version): the game, the players, the seed."""
        n = self.state.game.num_players
        return f"{self.title}, {plural(n, bot + ' bot')}, seed {self.state.seed}"

    def show(self, record: Any) -> list[str]:
        """The lines a history record prints as."""
        return [f"   {line}" for line in str(self.state.game.record_text(record)).splitlines()]

    def ending(self) -> list[str]:
        """The lines shown once the match is over (a game whose last record says it all shows none)."""
        state = self.state
        winners = " and ".join(self.who(w) for w in state.winners) or "nobody (a draw)"
        scores = ", ".join(f"{self.who(p)} {s}" for p, s in enumerate(state.scores))
        return ["", f"Game over: {winners} won ({state.game.score_label}: {scores})."]

    def status(self) -> list[str]:
        """The table and the person's hand (before each of their turns, and for ``hand``):
        the seat's view, one line a field."""
        return draw_view(self.state.view(self.you), self.state.game.num_players)

    def legal_texts(self) -> list[tuple[int, str]]:
        """The legal actions and their texts, in the order choice numbers name them (1, 2, ...)."""
        state = self.state
        return [(code, str(state.action_to_string(code))) for code in state.legal_actions()]

    def choice_lines(self, limit: int | None = None) -> list[str]:
        """The legal actions numbered (``limit``: at most that many, then how many more)."""
        legal = self.legal_texts()
        lines = [f"Your choices ({len(legal)}):"]
        lines += [f"  {i}. {text}" for i, (_, text) in enumerate(legal[:limit], 1)]
        if limit is not None and len(legal) > limit:
            lines.append(f"  ... and {len(legal) - limit} more ('list' shows them all; or type an action's text)")
        return lines

    def choices(self) -> list[str]:
        """What the person may do now (after :meth:`status` before each turn)."""
        return self.choice_lines(self.max_choices)

    def choice(self, text: str) -> int | None:
        """The action a choice's number names (None: ``text`` is no number); a number
        outside the list is refused. Every game's :meth:`act` takes these first."""
        text = text.strip()
        if not text.isdecimal():
            return None
        legal = self.legal_texts()
        if not 1 <= int(text) <= len(legal):
            raise FourCardsError(f"{quote(text)} is not a choice: type 1..{len(legal)} ('list' shows them), "
                                 "or an action's text")
        return legal[int(text) - 1][0]

    def act(self, line: str) -> None:
        """Turn the person's line into an action and apply it (raise :class:`FourCardsError` if it is none).

        A number picks from :meth:`choices`; anything else is an action's text
        (:meth:`~fourcards.engine.State.action_to_int`)."""
        text = line.strip()
        code = self.choice(text)
        if code is not None:
            self.state.apply(code, self.you)
            return
        legal = self.legal_texts()
        for code, shown in legal:  # the text as listed, whatever its case and spacing
            if " ".join(shown.lower().split()) == " ".join(text.lower().split()):
                self.state.apply(code, self.you)
                return
        try:
            code = self.state.action_to_int(text)
        except (FourCardsError, TypeError, ValueError, KeyError, IndexError) as error:
            raise FourCardsError(f"{quote(text)} is not an action of {self.title} ({_first_line(error)}); "
                                 f"type a choice's number (1..{len(legal)}) or an action as the list writes it") \
                from None
        self.state.apply(code, self.you)

    def automatic(self) -> int | None:
        """An action to take for the person without asking (their only choice), or None."""
        legal = self.state.legal_actions()
        return legal[0] if len(legal) == 1 else None

    def action_text(self, action: int) -> str:
        """How the person would type ``action`` (default: the action's text)."""
        return str(self.state.action_to_string(action))

    def typed(self, action: int) -> str:
        """What the person would type for ``action`` (the ``hint``): its text and its choice number."""
        text = self.action_text(action)
        numbers = [code for code, _ in self.legal_texts()]
        return f"{text}  (choice {numbers.index(action) + 1})" if action in numbers else text

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    # -- the command line (class-level: asked before there is a match) --------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Options of ``fourcards play GAME`` beyond the rules' own (none by default)."""

    @classmethod
    def check_rules(cls, args: argparse.Namespace, rules: dict[str, Any]) -> dict[str, Any]:
        """The rules a new match is made with, from the options (raise :class:`CommandLineError` to refuse)."""
        return rules

    @classmethod
    def extra_commands(cls) -> dict[str, tuple[Callable[[Any], None], Callable[[argparse.Namespace], int]]]:
        """Top-level commands this game adds to ``fourcards``: by name, a function adding the
        command to the subparsers and one running it (none by default)."""
        return {}


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _first_paragraph(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "")
    return _plain_doc(text.split("\n\n")[0]) if text else ""


def _plain_doc(text: str) -> str:
    """Docstring markup off: ``code`` and :role:`name` as plain words."""
    text = re.sub(r":[a-z]+:`~?([^`]*)`", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return text.replace("``", "").replace("**", "")


def _rules_text(game_class: type) -> str:
    """The rules in full, as the game's engine documents them: its module's and class's docstrings."""
    parts = [inspect.getdoc(sys.modules.get(game_class.__module__)) or "", inspect.getdoc(game_class) or ""]
    text = "\n\n".join(_plain_doc(part) for part in parts if part)
    return text or "This game documents no rules."


def _cell(value: Any) -> str:
    """One value of a view as a person reads it."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        if value and all(isinstance(item, list) for item in value):
            return " | ".join(_cell(item) for item in value) or "-"
        return " ".join(_cell(item) for item in value) or "-"
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        return ", ".join(f"{str(k).replace('_', ' ')} {_cell(v)}" for k, v in value.items() if k != "kind") or "-"
    return str(value)


def draw_view(view: dict[str, Any], seats: int, width: int = 160) -> list[str]:
    """A seat's view (JSON data) as lines: one a field, per-seat lists (one
    item a seat, none of them a text) as ``P0 .. Pn`` columns, card lists as
    their texts, logs (lists of objects) by their last items.

    >>> draw_view({"seat": 0, "hand": ["G3", "Y3"], "hand_sizes": [2, 5], "table": None}, 2)
    ['Hand: G3 Y3', 'Hand sizes:  P0 2   P1 5', 'Table: -']
    """
    lines = []
    for key, value in view.items():
        if key in ("seat", "current_player"):
            continue
        label = key[:1].upper() + key[1:].replace("_", " ")
        if isinstance(value, list) and seats > 1 and len(value) == seats and not any(
                isinstance(item, (dict, str)) for item in value):  # a list of texts is cards, not seats
            line = f"{label}:  " + "   ".join(f"P{p} {_cell(item)}" for p, item in enumerate(value))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            shown = value[-3:]
            more = f"{len(value)}, the last {len(shown)}: " if len(value) > len(shown) else ""
            line = f"{label}: {more}" + "; ".join(_cell(item) for item in shown)
        else:
            line = f"{label}: {_cell(value)}"
        lines.append(line if len(line) <= width else line[:width - 3] + "...")
    return lines


COMMON_HELP = """\
  3              choice 3 of your choices (every game)
  list           every choice, numbered
  hint           what the {bot} bot would do
  hand           show the table and your hand again
  rules          the rules in full
  save FILE      save the match (continue later with --resume FILE)
  help           this text
  quit           stop (Ctrl-D and Ctrl-C too; the match is saved first when --save FILE was given)"""


class DeckTable(Table):
    """A table of a game played with a deck of named cards (``game.deck``): the
    status says what to type, and the game's last record says who won."""

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.deck: Any = state.game.deck

    def ending(self) -> list[str]:
        return []  # the game's last record says who won

    def choices(self) -> list[str]:
        return []  # the status says what to type

    def automatic(self) -> int | None:
        return None


class Session:
    """A person (seat 0) against bots at one :class:`Table`, reading lines from ``stdin``."""

    def __init__(self, table: Table, bots: dict[int, Bot], adviser: Bot | None = None, *,
                 stdin: TextIO | None = None, stdout: TextIO | None = None, save_path: str | None = None,
                 pause: bool = False, adviser_name: str | None = None) -> None:
        self.table, self.state, self.bots, self.adviser = table, table.state, bots, adviser
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        if adviser_name is None:
            adviser_name = "best"
        self.save_path, self.pause, self.adviser_name = save_path, pause, adviser_name
        #: Whether the save on the way out (``save_path``) failed.
        self.save_failed = False
        self.seen = 0
        self.interactive = (self.stdin is sys.stdin and self.stdout is sys.stdout and _isatty(self.stdin))
        if self.interactive:
            _enable_line_editing()

    # -- output and input ---------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def read(self, prompt: str = "> ") -> str | None:
        """One line from the person (None at the end of input)."""
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                self.say()
                return None
        self.stdout.write(prompt)
        self.stdout.flush()
        raw = self.stdin.readline()
        return raw.rstrip("\n") if raw else None

    @property
    def help_text(self) -> str:
        table = self.table
        return "\n".join(part for part in (
            table.commands.rstrip(), COMMON_HELP.format(bot=self.adviser_name), "",
            f"{table.title} in short:", table.short_rules.rstrip(), "Type 'rules' for the rules in full.",
        ) if part is not None)

    # -- the loop -------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the match ends (0) or the person stops (0; 130 after Ctrl-C; 1 when the
        save on the way out failed)."""
        try:
            for line in self.table.intro():
                self.say(line)
            code = self._loop()
            return 1 if code == 0 and self.save_failed else code
        except KeyboardInterrupt:
            self.say()
            self.finish()
            return 130

    def _loop(self) -> int:
        state = self.state
        bot_moved = False
        while True:
            shown = self.show_new()
            if state.is_terminal:
                for line in self.table.ending():
                    self.say(line)
                return 0
            player = state.current_player
            if player != self.table.you:
                if self.pause and shown and bot_moved and not self.wait():
                    return 0
                state.apply(self.bots[player].choose(state.observation(player), state.legal_actions()), player)
                bot_moved = True
                continue
            bot_moved = False
            forced = self.table.automatic()
            if forced is not None:
                state.apply(forced, player)
                continue
            status = self.table.status()
            if status and status[0]:
                self.say()
            for line in status + self.table.choices():
                self.say(line)
            if not self.turn():
                return 0

    def show_new(self) -> bool:
        """Show the records added since last time; whether there were any."""
        records = self.state.history[self.seen:]
        self.seen += len(records)
        for record in records:
            for line in self.table.show(record):
                self.say(line)
        return bool(records)

    def wait(self) -> bool:
        """With ``--pause``: wait for Enter before the next bot moves (False: the person quits)."""
        line = self.read("  (Enter: next move; quit) ")
        if line is None or line.strip().lower() in ("quit", "exit", "q"):
            self.finish()
            return False
        return True

    def turn(self) -> bool:
        """Read lines until one acts; False when the person stops."""
        while True:
            raw = self.read()
            if raw is None:
                self.finish()
                return False
            text = raw.strip()
            word = text.lower()
            if not text:
                continue
            if len(text) > MAX_LINE:
                self.say(f"! {quote(text)} is too long ({len(text)} characters); type 'help' for what to type")
                continue
            if word in ("quit", "exit", "q"):
                self.finish()
                return False
            if word in ("help", "?", "h"):
                self.say(self.help_text)
                continue
            if word == "rules":
                self.say(self.table.rules.rstrip())
                continue
            if word == "hand":
                for line in self.table.status() + self.table.choices():
                    self.say(line)
                continue
            if word in ("list", "choices"):
                for line in self.table.choice_lines():
                    self.say(line)
                continue
            if word == "hint":
                self.hint()
                continue
            if word == "save" or word.startswith("save "):
                path = _one_path(text[4:])
                if path:
                    self.write(path)
                else:
                    self.say("! save where? e.g. save match.json")
                continue
            try:
                self.table.act(text)
                return True
            except Confirm as question:
                answer = self.read(f"{question.question} [y/N] ")
                if answer is None:
                    self.finish()
                    return False
                if answer.strip().lower() in ("y", "yes"):
                    try:
                        question.then()
                        return True
                    except ValueError as error:  # FourCardsError is a ValueError
                        self.say(f"! {in_player_words(str(error), self.table.action_verb)}")
                else:
                    self.say("(not done)")
            except ValueError as error:  # FourCardsError is a ValueError: nothing typed ends the session
                self.say(f"! {in_player_words(str(error), self.table.action_verb)}")

    def hint(self) -> None:
        if self.adviser is None:
            self.say("! no hint in this game")
            return
        state = self.state
        action = self.adviser.choose(state.observation(self.table.you), state.legal_actions())
        self.say(f"hint: {self.table.typed(action)}")

    def write(self, path: str) -> bool:
        problem = overwrite_problem(Path(path))
        if problem is not None:
            self.say(f"! will not save to {quote(path)}: {problem}")
            return False
        try:
            Path(path).write_text(self.state.to_json())
            self.say(f"saved to {path} (continue with --resume {_shell_word(path)})")
            return True
        except OSError as error:
            self.say(f"! could not save to {quote(path)}: {error.strerror or error}")
            return False

    def finish(self) -> None:
        if self.save_path and not self.state.is_terminal:
            self.save_failed = not self.write(self.save_path)
            if self.save_failed:  # the exit code says so; the message goes where errors go too
                print(f"fourcards: error: the match was not saved to {quote(self.save_path)}", file=sys.stderr)
        self.say("bye")


def _one_path(text: str) -> str:
    """The file named after ``save``: the text as typed, or unquoted when it is one quoted
    word (``save 'my match.json'``; a Windows path keeps its backslashes); empty when it
    names none (``save ''``)."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0] and text[0] not in text[1:-1]:
        return text[1:-1]
    return text


def _shell_word(path: str) -> str:
    """``path`` as a word of this system's shell (for the ``--resume`` hint)."""
    if os.name == "nt":
        return f'"{path}"' if any(c in path for c in ' &()^;,') else path
    return shlex.quote(path)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _enable_line_editing() -> None:
    """Line editing and history at the prompt (``input()`` uses readline once it is imported)."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input
        return
    with contextlib.suppress(Exception):  # libedit ignores unknown settings
        readline.parse_and_bind("set enable-bracketed-paste off")
