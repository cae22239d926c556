"""The browser page of the reference server (``fourcards/server/static``).

Two parts:

- the message catalogs and the page's files, checked in plain Python (always run):
  every language has exactly the same keys, no empty message, the same
  placeholders; every key the page asks for exists, including the ones built
  from data (games, rules, bots, error codes, cards); nothing is loaded from
  outside; the generated page data matches its generator;
- the page in a real headless Chromium (Playwright, the ``browser`` extra, and
  the operating system's ``chromium``), against the real server started as
  ``python -m fourcards serve``: a whole match of every game played by clicking
  the legal moves, a reload in the middle that comes back to the same seat, the
  lobby and the join link, the hint, a phone-width table, and every language
  with no English or raw key left on screen. Screenshots go to
  ``$FOURCARDS_SCREENSHOTS`` (``docs/images`` for the docs) when it is set.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fourcards.decks
import fourcards.server
from fourcards.games import GAMES, get_game
from fourcards.server.protocol import ERROR_CODES

STATIC = Path(fourcards.server.__file__).parent / "static"
CATALOGS = STATIC / "i18n"
LANGUAGES = ("en", "es", "fr", "it", "zh-Hant")
ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("FOURCARDS_CHROMIUM", "/usr/bin/chromium")
ELEMENTS = Path(fourcards.decks.__file__).parent / "elements.json"  # the installed deck


def catalog(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


# -- the catalogs ----------------------------------------------------------------------------------

def test_every_catalog_has_the_same_keys_and_no_empty_message() -> None:
    english = catalog("en")
    assert len(english) > 200
    for lang in LANGUAGES:
        messages = catalog(lang)
        assert set(messages) == set(english), (lang, set(messages) ^ set(english))
        empty = [key for key, text in messages.items() if not isinstance(text, str) or not text.strip()]
        assert not empty, (lang, empty)


def test_every_translation_keeps_the_placeholders() -> None:
    english = catalog("en")
    for lang in LANGUAGES[1:]:
        messages = catalog(lang)
        wrong = [key for key in english if placeholders(messages[key]) != placeholders(english[key])]
        assert not wrong, (lang, wrong)


#: Messages that are the same word as in English in that language (checked by a person).
SAME_AS_ENGLISH = {
    "es": {"lobby.bot", "fc.rank.general", "fc.reason.hu"},
    "fr": {"rule.mode", "rule.mode.solitaire", "lobby.tables",
           "score.four-color", "score.zangle", "score.zangle-speedster",
           "end.score", "gof.dragon",
           "zangle.place.centre", "zangle.centre"},
    "it": {"lobby.bot"},
    "zh-Hant": set(),
}
#: Names and symbols, the same in every language.
NAMES = re.compile(r"^(app\.title|language\..*|element\..*|unit\..*|colour\.short\..*"
                   r"|game\.(gang-of-four|zangle|zangle-speedster|four-pack|duelo))$")


def words_of(text: str) -> str:
    """The letters of a message once its placeholders are taken out."""
    return re.sub(r"\{\w+\}|[^\w]", "", text)


def test_every_message_is_translated() -> None:
    english = catalog("en")
    for lang in LANGUAGES[1:]:
        same = {key for key, text in catalog(lang).items()
                if text == english[key] and not NAMES.match(key) and words_of(text)}
        assert same == SAME_AS_ENGLISH[lang], (lang, sorted(same ^ SAME_AS_ENGLISH[lang]))


def _script_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(STATIC.rglob("*.js")))


#: The page modules of the games (``static/games/NAME.js``), by catalogue name.
GAME_MODULES = (*GAMES, "zangle-speedster")


def test_every_game_has_its_page_module_and_the_page_names_no_game() -> None:
    assert sorted(path.stem for path in (STATIC / "games").glob("*.js")) == sorted(GAME_MODULES)
    # The page itself knows no game: only the games' modules, the drawings of the cards they
    # share (cards.js) and the catalogs do.
    for path in STATIC.glob("*.js"):
        if path.name == "cards.js":
            continue
        text = path.read_text(encoding="utf-8")
        named = [name for name in GAME_MODULES if name in text]
        assert not named, (path.name, named)
        assert not re.search(r"\b(gof|fc|zangle|fp|duelo|sp)\.", text), path.name  # no game's messages


def test_the_games_modules_read_structured_fields_and_parse_no_text() -> None:
    # No regular expression, no word splitting: an action or a record is read by its fields.
    for path in [*sorted((STATIC / "games").glob("*.js")), STATIC / "generic.js"]:
        text = path.read_text(encoding="utf-8")
        for token in ("RegExp", ".exec(", ".match(", ".matchAll(", ".split(", "words(", ".test(", "parseZangle"):
            assert token not in text, (path.name, token)
        # no regular expression literal either (a "/" that opens one after "(", "=", "," or ":")
        assert not re.search(r"[(=,:]\s*/[^/*\s]", text), path.name
        # A move's or record's text is at most passed on (Speedster sends a call back by its text),
        # or shown whole by the generic table for a game it does not know.
        reads = re.findall(r"\w+\.text\b", text)
        allowed = {"zangle-speedster.js": {"z.text"}, "generic.js": {"a.text", "r.text"}}.get(path.name, set())
        assert set(reads) <= allowed, (path.name, reads)


def test_every_literal_key_the_page_uses_is_in_the_catalog() -> None:
    english = catalog("en")
    used = set(re.findall(r"""\bt\(\s*"([^"]+)"\s*[,)]""", _script_text()))
    assert len(used) > 100
    assert not used - set(english), sorted(used - set(english))


#: The codes of the HTTP API's errors (docs/server.md).
HTTP_ERRORS = ("bad_deck", "bad_json", "bad_request", "bad_rules", "bad_seats", "unknown_game", "unknown_seat",
               "unknown_table", "seat_taken", "too_large", "too_many_tables", "not_found", "forbidden_origin",
               "unsupported_media_type", "bad_invite", "not_finished", "rate_limited", "too_many_connections")


def _data_keys() -> set[str]:
    """The keys the page builds from data: games, rules, bots, errors, cards."""
    keys = {f"language.{lang}" for lang in LANGUAGES}
    page_games = [name for name in GAMES]
    for name in page_games:
        entry = GAMES[name]
        keys |= {f"game.{name}", f"game.{name}.about", f"score.{name}"}
        keys |= {f"bot.{kind}" for kind in entry.bot_kinds}
        rules = entry.game_class.rules_type
        keys |= {f"rule.{f.name}" for f in dataclasses.fields(rules) if f.name != "deck"}
    keys |= {"rule.mode.turn", "rule.mode.solitaire", "rule.check", "rule.check.each", "rule.check.at_round_end",
             "rule.only_generals.hu", "rule.only_generals.no_winner",
             "rule.bot_reaction", "game.zangle-speedster", "game.zangle-speedster.about", "score.zangle-speedster"}
    keys |= {f"error.{code}" for code in (*ERROR_CODES, *HTTP_ERRORS)}
    keys |= {f"status.{s}" for s in ("connecting", "connected", "reconnecting")}
    colours = ("green", "yellow", "red", "white", "multi")
    keys |= {f"colour.{c}" for c in colours} | {f"colour.short.{c}" for c in colours}
    keys |= {f"fc.rank.{r}" for r in ("general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier")}
    keys |= {f"fc.offer.{s}" for s in ("discard", "turned", "laid")}
    keys |= {f"fc.reason.{r}" for r in ("hu", "generals", "empty", "stock", "other")}
    keys |= {f"zangle.place.{p}" for p in ("centre", "own")}
    deck = json.loads(ELEMENTS.read_text(encoding="utf-8"))
    keys |= {f"family.{f}" for f in deck["families"]}
    keys |= {f"category.{c['id']}" for c in deck["categories"]}
    keys |= {f"unit.{c['unit']}" for c in deck["categories"] if c["unit"]}
    keys |= {f"element.{c['symbol']}" for c in deck["cards"]}
    return keys


def test_every_key_built_from_data_is_in_the_catalog() -> None:
    missing = _data_keys() - set(catalog("en"))
    assert not missing, sorted(missing)


def test_the_page_loads_nothing_from_outside() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix not in (".html", ".js", ".css"):
            continue
        text = path.read_text(encoding="utf-8")
        urls = [u for u in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'`)]*", text)
                if u != "http://www.w3.org/2000/svg" and not u.startswith("//www.w3.org/2000/svg")]
        assert not urls, (path.name, urls)
        assert "@import" not in text, path.name


def test_the_page_data_matches_its_generator() -> None:
    script = ROOT / "tools" / "generate_page_data.py"
    if not script.exists():
        pytest.skip("the tools folder is not here (installed package)")
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_zangle_shapes_are_the_geometry_s() -> None:
    from fourcards.zangle.geometry import SHAPES

    shapes = json.loads((STATIC / "data" / "zangle-shapes.json").read_text(encoding="utf-8"))
    assert list(shapes) == list(SHAPES)
    for notation, shape in SHAPES.items():
        assert len(shapes[notation]["triangles"]) == shape.size


# -- the page in Chromium -------------------------------------------------------------------------

def _browser_parts() -> Any:
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    return sync_api


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``python -m fourcards serve`` on 127.0.0.1 and a free port."""

    def __init__(self, db: Path, port: int | None = None, bot_delay: float = 0.02) -> None:
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = db
        # The per-address limits lifted: every table, page and socket of the tests comes from 127.0.0.1.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fourcards", "serve", "--port", str(self.port), "--db", str(db),
             "--bot-delay", str(bot_delay), "--tables-per-client", "100000", "--create-rate", "100000",
             "--claim-rate", "100000", "--request-rate", "100000", "--connection-rate", "100000",
             "--socket-rate", "100000", "--list-rate", "100000", "--hint-rate", "100000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"the server stopped: {error}")
            try:
                urllib.request.urlopen(self.url + "/api/games", timeout=1).read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise
                time.sleep(0.1)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.load(response)

    def table(self, game: str, rules: dict[str, Any], bots: list[str]) -> str:
        """A table with a human seat 0 and bots in the others: its id."""
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": bot} for bot in bots]
        created = self.post("/api/tables", {"game": game, "rules": rules, "seats": seats})
        table_id: str = created["id"]
        return table_id

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _browser_parts()
    running = Server(tmp_path_factory.mktemp("server") / "tables.db")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def playwright(server: Server) -> Iterator[Any]:
    """One Playwright driver for the module's browsers."""
    sync_api = _browser_parts()
    with sync_api.sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    yield chromium
    chromium.close()


class Page:
    """One browser tab on the server's page, failing on any script error."""

    def __init__(self, browser: Any, server: Server, width: int = 1000, height: int = 900,
                 locale: str = "en-US") -> None:
        self.server = server
        self.context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        self.page = self.context.new_page()
        self.page.set_default_timeout(30000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)

    def open(self, fragment: str = "") -> None:
        self.page.goto(f"{self.server.url}/{fragment}")

    def take_seat(self, table: str, seat: int = 0) -> None:
        """Claim ``seat`` through the API and store its token as the page does."""
        claimed = self.server.post(f"/api/tables/{table}/seats/{seat}", {})
        self.open()
        self.page.wait_for_selector("#create-form")
        self.page.evaluate("([table, seat, token]) => localStorage.setItem('fourcards.seats',"
                           " JSON.stringify({[table]: {seat, token}}))", [table, claimed["seat"], claimed["token"]])
        self.open(f"#/table/{table}")

    def wait_for_turn_or_end(self) -> str:
        self.page.wait_for_selector("#actions button.action:not([disabled]), #end")
        return "end" if self.page.query_selector("#end") else "turn"

    def play(self, moves: int | None = None, choose: int = 0) -> int:
        """Click legal moves until the match ends (or ``moves`` clicks): the clicks made."""
        clicks = 0
        while moves is None or clicks < moves:
            if self.wait_for_turn_or_end() == "end":
                break
            buttons = self.page.query_selector_all("#actions button.action:not([disabled])")
            if not buttons:
                continue
            version = self.version()
            try:
                buttons[min(choose, len(buttons) - 1)].click(timeout=2000)
            except Exception:  # the table moved on and the button went away: look again
                continue
            clicks += 1
            # the move is answered with a new state (or an error that re-enables the moves)
            self.page.wait_for_function(
                "v => window.fourcardsVersion !== v || document.querySelector('#actions button.action:not([disabled])')"
                " || document.querySelector('#end')", arg=version)
            assert clicks < 2000, "the match does not end"
        return clicks

    def version(self) -> int:
        value: int = self.page.evaluate("window.fourcardsVersion ?? -1")
        return value

    def screenshot(self, name: str) -> None:
        folder = os.environ.get("FOURCARDS_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(folder) / name), full_page=True)

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


GAME_SETUPS = {
    "gang-of-four": ({"players": 3, "target_score": 1}, ["greedy", "greedy"]),
    "four-color": ({"players": 2, "rounds": 1}, ["greedy"]),
    "zangle": ({"players": 2, "rounds": 1}, ["greedy"]),
    "four-pack": ({"players": 3, "max_asks": 40}, ["memory", "memory"]),
    "duelo": ({"players": 2, "hand_limit": 12}, ["category"]),
}


@pytest.mark.parametrize("game", list(GAME_SETUPS))
def test_a_whole_match_by_clicking_with_a_reload_in_the_middle(browser: Any, server: Server, game: str) -> None:
    rules, bots = GAME_SETUPS[game]
    tab = Page(browser, server)
    try:
        for _ in range(3):  # a deal where the bots end the match before the person's turn (Four Pack, 1 in 80): again
            table = server.table(game, rules, bots)
            tab.take_seat(table)
            tab.page.wait_for_selector(".board")
            assert tab.page.inner_text("h2") == catalog("en")[f"game.{game}"]
            first = tab.play(moves=3)
            if first >= 1:
                break
        assert first >= 1
        tab.screenshot(f"table-{game}.png")
        before = tab.version()
        # A reload comes back to the same seat, at the same point of the match or later.
        tab.page.reload()
        tab.page.wait_for_selector(".seat.mine")
        tab.page.wait_for_function("v => (window.fourcardsVersion ?? -1) >= v", arg=before)
        assert tab.page.inner_text(".seat.mine strong") == catalog("en")["seat.you"]
        assert tab.page.evaluate("window.fourcardsSeat") == 0
        tab.play()
        tab.page.wait_for_selector("#end")
        summary = server.get(f"/api/tables/{table}")
        assert summary["terminal"] is True
        shown = tab.page.inner_text("#end")
        assert catalog("en")["end.title"] in shown
        cells = tab.page.eval_on_selector_all("#end tbody td", "cells => cells.map(c => c.textContent)")
        assert cells == [str(score) for score in summary["scores"]]
        won = 0 in summary["winners"]
        assert (tab.page.inner_text("#end .result") == catalog("en")["end.won"]) == won
    finally:
        tab.close()


def test_the_lobby_creates_a_table_and_the_link_lets_a_second_person_join(browser: Any, server: Server) -> None:
    host = Page(browser, server)
    guest = Page(browser, server)
    try:
        host.open()
        host.page.wait_for_selector("#create-form")
        host.page.select_option("#game", "duelo")
        # the catalogue's range reaches the form (it read min/max, which the catalogue never sends)
        listed = next(o for g in server.get("/api/games")["games"] if g["name"] == "duelo" for o in g["rules"]
                      if o["name"] == "hand_limit")
        assert host.page.get_attribute("#rule-hand_limit", "min") == str(listed["low"]) == "1"
        assert host.page.get_attribute("#rule-hand_limit", "max") == str(listed["high"])
        host.page.fill("#rule-hand_limit", "4")
        host.page.select_option("#seat-1", "human")
        host.page.click("#create-form button[type=submit]")
        host.page.wait_for_selector(".seat.mine")
        table = host.page.evaluate("location.hash").split("/")[-1]
        summary = server.get(f"/api/tables/{table}")
        assert summary["game"] == "duelo" and summary["rules"]["hand_limit"] == 4
        assert [(s["kind"], s["taken"]) for s in summary["seats"]] == [("human", True), ("human", False)]
        # The open table is listed in the lobby; its link takes the free seat.
        guest.open()
        guest.page.wait_for_selector(f"#tables a[href='#/join/{table}']")
        guest.open(f"#/join/{table}")
        guest.page.click("text=" + catalog("en")["join.seat"].replace("{n}", "2"))
        guest.page.wait_for_selector(".seat.mine")
        assert guest.page.evaluate("window.fourcardsSeat") == 1
        assert server.get(f"/api/tables/{table}")["seats"][1]["taken"] is True
        # Two people play the match out, each clicking in their own tab.
        for _ in range(200):
            if host.page.query_selector("#end") and guest.page.query_selector("#end"):
                break
            for tab in (host, guest):
                if tab.page.query_selector("#actions button.action:not([disabled])"):
                    tab.play(moves=1)
            host.page.wait_for_timeout(20)
        assert host.page.query_selector("#end") and guest.page.query_selector("#end")
    finally:
        host.close()
        guest.close()


def test_the_hint_names_a_legal_move_and_marks_its_button(browser: Any, server: Server) -> None:
    table = server.table("four-color", {"players": 2}, ["greedy"])
    tab = Page(browser, server)
    try:
        tab.take_seat(table)
        tab.wait_for_turn_or_end()
        tab.page.click("#hint")
        tab.page.wait_for_selector(".hint")
        hinted = tab.page.query_selector_all("#actions button.action.hinted")
        assert len(hinted) == 1
        assert tab.page.inner_text(".hint").startswith(catalog("en")["table.hint.says"])
        hinted[0].click()
        tab.page.wait_for_function("() => !document.querySelector('.hint')")
    finally:
        tab.close()


def test_a_table_at_phone_width(browser: Any, server: Server) -> None:
    table = server.table("gang-of-four", {"players": 4}, ["greedy", "greedy", "greedy"])
    tab = Page(browser, server, width=375, height=740)
    try:
        tab.take_seat(table)
        tab.play(moves=2)
        tab.wait_for_turn_or_end()
        # Nothing is wider than the screen, and the moves are big enough to touch.
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= 375
        wide = tab.page.evaluate("""() => [...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > 375.5 && e.getClientRects().length)
            .map(e => e.className || e.tagName)""")
        assert not wide, wide
        sizes = tab.page.eval_on_selector_all(
            "#actions button.action, #hint", "bs => bs.map(b => [b.offsetWidth, b.offsetHeight])")
        assert sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes
        tab.screenshot("table-phone.png")
    finally:
        tab.close()


VISIBLE_TEXT = """() => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.trim();
    if (text && node.parentElement.checkVisibility()) texts.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title]')) {
    if (el.checkVisibility()) texts.push(el.getAttribute('aria-label') || el.getAttribute('title'));
  }
  for (const option of document.querySelectorAll('option')) texts.push(option.textContent.trim());
  return texts;
}"""


#: Common English words of the page that no other catalog uses.
ENGLISH_WORDS = {"the", "your", "you", "and", "card", "cards", "seat", "play", "pass", "turn", "waiting",
                 "points", "round", "hand", "table", "move", "moves", "hint", "history", "won", "with", "ask",
                 "call", "hit", "families", "family", "score", "player", "players", "bot", "over", "loading",
                 "connected", "rules", "game", "new", "join", "open", "back", "copy", "link"}


def _english_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """A pattern for each English message that ``lang`` says differently."""
    english, other = catalog("en"), catalog(lang)
    patterns = []
    for key, text in english.items():
        if other[key] == text or len(words_of(text)) < 3:
            continue
        body = re.escape(text)
        body = re.sub(r"\\\{\w+\\\}", ".+?", body)
        patterns.append((key, re.compile(f"^{body}$")))
    return patterns


#: The tables each language is checked on (every game in two languages).
TABLES_BY_LANGUAGE = {"es": ("gang-of-four", "four-color", "duelo"), "fr": ("zangle", "four-pack"),
                      "it": ("duelo", "gang-of-four"), "zh-Hant": ("four-color", "zangle", "four-pack")}


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_word_on_screen_is_in_the_chosen_language(browser: Any, server: Server, lang: str) -> None:
    english_patterns = _english_patterns(lang)
    keys = set(catalog("en"))
    messages = catalog(lang)
    own_words = {word.lower() for text in messages.values() for word in re.findall(r"[A-Za-z]+", text)}

    def check(tab: Page, where: str) -> None:
        texts: list[str] = tab.page.evaluate(VISIBLE_TEXT)
        assert texts, where
        raw = [text for text in texts if text in keys]
        english = [(text, key) for text in texts for key, pattern in english_patterns if pattern.match(text)]
        assert not raw, (where, raw)
        assert not english, (where, english)
        # Words written into the page's code rather than its catalogs would be English.
        stray = [text for text in texts for word in re.findall(r"[A-Za-z]+", text)
                 if word.lower() in ENGLISH_WORDS - own_words]
        assert not stray, (where, stray)

    tab = Page(browser, server)
    try:
        tab.open()
        tab.page.wait_for_selector("#create-form")
        with pytest.raises(AssertionError):  # the check sees English: the browser asked for it
            check(tab, "lobby in English")
        tab.page.select_option("#language", lang)
        tab.page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)
        assert tab.page.inner_text("#create h2") == messages["lobby.new"]
        for game in [*GAME_SETUPS, "zangle-speedster"]:
            tab.page.select_option("#game", game)
            tab.page.wait_for_selector(f"#create-form p.note >> text={catalog(lang)[f'game.{game}.about']}")
            check(tab, f"lobby {game}")
        # Every game's table, part-way through.
        for game in TABLES_BY_LANGUAGE[lang]:
            rules, bots = GAME_SETUPS[game]
            table = server.table(game, rules, bots)
            claimed = server.post(f"/api/tables/{table}/seats/0", {})
            tab.page.evaluate("([table, seat, token]) => localStorage.setItem('fourcards.seats',"
                              " JSON.stringify({[table]: {seat, token}}))", [table, 0, claimed["token"]])
            tab.open(f"#/table/{table}")
            tab.page.wait_for_selector(".board")
            tab.play(moves=2)
            tab.wait_for_turn_or_end()
            check(tab, game)
            if game == "duelo":  # and the end of a match
                tab.play()
                tab.page.wait_for_selector("#end")
                check(tab, "the end of a match")
                # The same table watched, and its replay at a step and at its end.
                tab.open(f"#/watch/{table}")
                tab.page.wait_for_selector("#watching")
                tab.page.wait_for_selector("#end")
                check(tab, "watching")
                tab.open(f"#/replay/{table}")
                tab.page.wait_for_selector("#replay-record[data-index='-1']")
                check(tab, "the start of a replay")
                tab.page.click("#replay-next")
                tab.page.wait_for_selector("#replay-record[data-index='0']")
                check(tab, "a replay")
                tab.page.click("#replay-last")
                tab.page.wait_for_selector("#replay-end #end")
                check(tab, "the end of a replay")
        # The choice is kept across a reload.
        tab.page.reload()
        tab.page.wait_for_selector(".board, #replay-record")
        assert tab.page.evaluate("document.documentElement.lang") == lang
    finally:
        tab.close()


def test_the_browser_language_chooses_the_catalog(browser: Any, server: Server) -> None:
    for locale, lang in (("fr-CA", "fr"), ("zh-TW", "zh-Hant"), ("de-DE", "en")):
        tab = Page(browser, server, locale=locale)
        try:
            tab.open()
            tab.page.wait_for_selector("#create-form")
            assert tab.page.evaluate("document.documentElement.lang") == lang
            assert tab.page.inner_text("#create h2") == catalog(lang)["lobby.new"]
        finally:
            tab.close()


def test_the_page_reconnects_when_the_server_comes_back(browser: Any, tmp_path: Path) -> None:
    first = Server(tmp_path / "tables.db")
    table = first.table("zangle", {"players": 2}, ["greedy"])
    tab = Page(browser, first)
    second = None
    try:
        tab.take_seat(table)
        tab.play(moves=1)
        tab.wait_for_turn_or_end()
        before = tab.version()
        first.stop()
        tab.page.wait_for_selector(".status-reconnecting")
        second = Server(tmp_path / "tables.db", port=first.port)  # the same address, the stored tables
        tab.page.wait_for_selector(".status-connected")
        tab.page.wait_for_function("v => (window.fourcardsVersion ?? -1) >= v", arg=before)
        assert tab.play(moves=1) == 1
    finally:
        tab.errors = [e for e in tab.errors if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e]
        tab.close()
        if second is not None:
            second.stop()


def test_a_whole_speedster_match_in_real_time(browser: Any, server: Server) -> None:
    created = server.post("/api/tables", {"game": "zangle-speedster", "rules": {"players": 2, "rounds": 1,
                                                                              "bot_reaction": 1.0},
                                          "seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]})
    table = created["id"]
    tab = Page(browser, server)
    try:
        tab.take_seat(table)
        tab.page.wait_for_selector("#actions, #end")
        calls = 0
        for _ in range(400):
            tab.page.wait_for_selector("#actions button.action:not([disabled]), #end")
            if tab.page.query_selector("#end"):
                break
            # A Zangle when there is one (the first listed), else a hit: clicked inside the page
            # in one step, as the table redraws whenever anyone acts.
            clicked = tab.page.evaluate("""() => {
                const button = document.querySelector('#actions button.action:not(.hit):not([disabled])')
                    || document.querySelector('#hit:not([disabled])');
                if (!button) return false;
                button.click();
                return true;
            }""")
            calls += bool(clicked)
            tab.page.wait_for_timeout(100)
        tab.page.wait_for_selector("#end")
        assert calls > 0
        summary = server.get(f"/api/tables/{table}")
        assert summary["terminal"] is True
        cells = tab.page.eval_on_selector_all("#end tbody td", "cells => cells.map(c => c.textContent)")
        assert cells == [str(score) for score in summary["scores"]]
        tab.screenshot("table-zangle-speedster.png")
    finally:
        tab.close()


def test_an_uploaded_deck_is_drawn_with_its_own_names(browser: Any, server: Server) -> None:
    deck = json.loads(ELEMENTS.read_text(encoding="utf-8"))
    deck["name"] = "Planets and moons"
    for card in deck["cards"]:
        card["name"] = f"Body {card['id']}"
    created = server.post("/api/tables", {"game": "duelo", "rules": {"players": 2}, "deck": deck,
                                          "seats": [{"kind": "human"}, {"kind": "bot", "bot": "category"}]})
    tab = Page(browser, server, locale="fr-FR")
    try:
        tab.take_seat(created["id"])
        tab.page.wait_for_selector(".card.element.with-values")
        card_id = tab.page.get_attribute(".card.element.with-values", "data-card")
        assert tab.page.inner_text(".card.element.with-values .name") == f"Body {card_id}"
    finally:
        tab.close()


# -- the games' page modules and the generic table ------------------------------------------------

def test_every_game_s_page_module_loads_from_its_catalogue_address(browser: Any, server: Server) -> None:
    catalogue = {game["name"]: game for game in server.get("/api/games")["games"]}
    assert set(GAME_MODULES) <= set(catalogue)
    tab = Page(browser, server)
    try:
        tab.open()
        tab.page.wait_for_selector("#create-form")
        for name in GAME_MODULES:
            script = catalogue[name]["script"]
            assert script, name
            with urllib.request.urlopen(server.url + script, timeout=10) as response:
                assert response.status == 200
                assert "javascript" in response.headers["content-type"]
            # Imported in the page (its imports resolved by the page's import map): a table's parts.
            parts = tab.page.evaluate("""async (url) => {
                const module = await import(new URL(url, location.href).href);
                return Object.entries(module.default).filter(([, v]) => typeof v === "function").map(([k]) => k);
            }""", script)
            assert {"board", "seatFacts", "history"} <= set(parts), (name, parts)
    finally:
        tab.close()


def _catalogue_without_script(tab: Page, game: str) -> None:
    """Serve the page a catalogue in which ``game`` has no page module (as a game unknown to the page)."""
    def answer(route: Any) -> None:
        response = route.fetch()
        listed = response.json()
        for entry in listed["games"]:
            if entry["name"] == game:
                entry["script"] = None
        route.fulfill(response=response, json=listed)

    tab.page.route("**/api/games", answer)


def _play_a_move_by_selecting_a_card(tab: Page) -> None:
    """Select a card of the hand, check the moves narrow to the ones using it, and play one
    (on a turn where no card can be played, passing first: the deal is the server's)."""
    for _ in range(30):
        assert tab.wait_for_turn_or_end() == "turn", "the match ended before a card could be played"
        picks = tab.page.query_selector_all(".board button.card-button")
        if picks:
            break
        version = tab.version()  # only a pass is legal: take it and wait for the next turn
        tab.page.click("#actions button.action:not([disabled])")
        tab.page.wait_for_function("v => window.fourcardsVersion !== v || document.querySelector('#end')",
                                   arg=version)
    assert picks, "no card of the hand selects"
    card = picks[-1].get_attribute("data-pick")
    picks[-1].click()
    tab.page.wait_for_selector(f".board button.card-button.selected[data-pick='{card}']")
    moves = tab.page.eval_on_selector_all(
        "#actions button.action", "bs => bs.map(b => [...b.querySelectorAll('[data-card]')].map(c => c.dataset.card))")
    assert moves and all(card in cards for cards in moves), (card, moves)
    version = tab.version()
    tab.page.click("#actions button.action:not([disabled])")
    tab.page.wait_for_function("v => window.fourcardsVersion !== v || document.querySelector('#end')", arg=version)


def test_the_generic_table_draws_and_plays_a_game_without_a_page_module(browser: Any, server: Server) -> None:
    table = server.table("gang-of-four", {"players": 3, "target_score": 1}, ["greedy", "greedy"])
    tab = Page(browser, server)
    try:
        _catalogue_without_script(tab, "gang-of-four")
        tab.take_seat(table)
        tab.page.wait_for_selector(".board .zone .card.chip")
        # Drawn by the generic table: cards by their text, not Gang of Four's drawings.
        assert not tab.page.query_selector(".card.gof")
        hand = tab.page.eval_on_selector_all(".board .zone .card.chip", "cs => cs.map(c => c.dataset.card)")
        view = tab.page.evaluate("window.fourcardsVersion")
        assert hand and view is not None
        # Per-seat counts next to each seat, scalars as labelled facts.
        assert tab.page.inner_text(".seat.mine").count("hand sizes") == 1
        assert tab.page.query_selector(".board ul.facts li")
        # Moves labelled by their fields (kind, cards), one played by selecting a card and clicking.
        _play_a_move_by_selecting_a_card(tab)
        assert tab.play(moves=3) >= 1
        tab.screenshot("table-generic.png")
        # The whole match, by clicking.
        tab.play()
        tab.page.wait_for_selector("#end")
        assert server.get(f"/api/tables/{table}")["terminal"] is True
    finally:
        tab.close()


def test_a_game_module_that_does_not_load_falls_back_to_the_generic_table(browser: Any, server: Server) -> None:
    table = server.table("duelo", {"players": 2, "hand_limit": 6}, ["category"])
    tab = Page(browser, server)
    warnings: list[str] = []
    tab.page.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
    tab.page.route("**/games/duelo.js", lambda route: route.fulfill(status=404, body="no"))
    try:
        tab.take_seat(table)
        tab.page.wait_for_selector(".board")
        assert not tab.page.query_selector(".card.element.with-values")  # not Duelo's own table
        assert any("duelo" in text for text in warnings), warnings
        tab.play()
        tab.page.wait_for_selector("#end")
    finally:
        tab.errors = [e for e in tab.errors if "404" not in e]  # the refused module
        tab.close()


def test_a_gang_of_four_move_is_chosen_by_selecting_its_cards(browser: Any, server: Server) -> None:
    table = server.table("gang-of-four", {"players": 3, "target_score": 1}, ["greedy", "greedy"])
    tab = Page(browser, server)
    try:
        tab.take_seat(table)
        tab.page.wait_for_selector(".board .card.gof")
        _play_a_move_by_selecting_a_card(tab)
    finally:
        tab.close()


# -- spectators, private tables and replays -------------------------------------------------------

#: Bot tables a spectator follows: every seat a bot (Speedster's bots react in real time).
WATCH_SETUPS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "gang-of-four": ({"players": 3, "target_score": 1}, ["greedy", "greedy", "greedy"]),
    "four-color": ({"players": 2, "rounds": 1}, ["greedy", "greedy"]),
    "zangle": ({"players": 2, "rounds": 1}, ["greedy", "greedy"]),
    "four-pack": ({"players": 3, "max_asks": 40}, ["memory", "memory", "memory"]),
    "duelo": ({"players": 2, "hand_limit": 12}, ["category", "category"]),
    "zangle-speedster": ({"players": 2, "rounds": 1, "bot_reaction": 0.4}, ["greedy", "greedy"]),
}

#: Records, in the page, what every redraw of a table showed (a mutation observer runs once the
#: page's synchronous redraw is done, so each record holds one state's drawing and its version).
SNAPSHOTS = """
window.fourcardsSnapshots = [];
new MutationObserver(() => {
  const table = document.querySelector("#table");
  if (!table) return;
  const board = table.querySelector(".board");
  window.fourcardsSnapshots.push({
    version: window.fourcardsVersion ?? null,
    cards: [...document.querySelectorAll("main [data-card]")].map((e) => e.dataset.card),
    moves: document.querySelectorAll(
      "main #actions, main button.action, main #hint, main #hit, main .card-button").length,
    board: Boolean(board && board.childElementCount && board.textContent.trim()),
    loading: Boolean(table.querySelector("p.loading")),
    watching: Boolean(table.querySelector("#watching")),
    mine: table.querySelectorAll(".seat.mine").length,
    seats: table.querySelectorAll(".seat").length,
    end: Boolean(table.querySelector("#end")),
  });
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose bots wait 0.2 s before each move, so that a spectator follows every one."""
    _browser_parts()
    running = Server(tmp_path_factory.mktemp("slow") / "tables.db", bot_delay=0.2)
    yield running
    running.stop()


def _stored_match(db: Path, table: str) -> tuple[int, list[int]]:
    """The seed and the actions the server stored for ``table`` (read from its SQLite file)."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        seed = int(con.execute("SELECT seed FROM tables WHERE id=?", (table,)).fetchone()[0])
        actions = [a for (a,) in con.execute("SELECT action FROM log WHERE table_id=? ORDER BY idx", (table,))]
        return seed, actions
    finally:
        con.close()


def _words(value: Any) -> set[str]:
    """Every letter-and-digit run in a JSON value's strings and keys (a card's name is one)."""
    if isinstance(value, str):
        return set(re.findall(r"[A-Za-z0-9]+", value))
    if isinstance(value, dict):
        return set().union(*(_words(k) | _words(v) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return set().union(*(_words(v) for v in value))
    return set()


def _hidden_cards(game: str, rules: dict[str, Any], db: Path, table: str) -> list[set[str]]:
    """At every version of the stored match, recomputed by the engine: the cards in any seat's
    hand (or on top of its pile) that no public record has named so far."""
    engine = get_game(game).new_game(**rules)
    seed, actions = _stored_match(db, table)
    state = engine.new_match(seed)
    hidden, public, seen = [], set(), 0
    for version in range(len(actions) + 1):
        history = state.history
        public |= _words([engine.record_view(r) for r in history[seen:]])
        seen = len(history)
        held: set[str] = set()
        for seat in range(engine.num_players):
            view = state.view(seat)
            held |= set(view.get("hand") or [])
            if view.get("top_card"):
                held.add(view["top_card"])
        hidden.append(held - public)
        if version < len(actions):
            state.apply(actions[version])
    assert state.is_terminal
    return hidden


def _wait_terminal(server: Server, table: str, invite: str | None = None, seconds: float = 120) -> dict[str, Any]:
    query = f"?invite={invite}" if invite else ""
    deadline = time.monotonic() + seconds
    while True:
        summary: dict[str, Any] = server.get(f"/api/tables/{table}{query}")
        if summary["terminal"]:
            return summary
        assert time.monotonic() < deadline, "the match does not end"
        time.sleep(0.1)


@pytest.mark.parametrize("variant", [*WATCH_SETUPS, "generic:four-color"])
def test_a_spectator_watches_a_bot_table_from_start_to_end(browser: Any, slow_server: Server, variant: str) -> None:
    # "generic:GAME": the game drawn by the generic table (as a game without a page module).
    game = variant.removeprefix("generic:")
    rules, bots = WATCH_SETUPS[game]
    tab = Page(browser, slow_server)
    tab.page.add_init_script(SNAPSHOTS)
    if variant != game:
        _catalogue_without_script(tab, game)
    try:
        # The page is loaded first, so that watching starts as soon as the table exists.
        tab.open()
        tab.page.wait_for_selector("#create-form")
        tab.page.evaluate("() => { window.fourcardsSnapshots = []; }")
        created = slow_server.post("/api/tables", {"game": game, "rules": rules,
                                                   "seats": [{"kind": "bot", "bot": bot} for bot in bots]})
        table = created["id"]
        tab.page.evaluate("table => { location.hash = `#/watch/${table}`; }", table)
        tab.page.wait_for_selector("#end", timeout=120000)
        summary = _wait_terminal(slow_server, table)
        snapshots: list[dict[str, Any]] = tab.page.evaluate("window.fourcardsSnapshots")
        drawn = [s for s in snapshots if s["version"] is not None]
        assert drawn, snapshots
        # Never a move to make, no seat of one's own, and the spectator is told so; the board drawn.
        assert all(s["moves"] == 0 and s["mine"] == 0 and s["watching"] for s in snapshots), \
            [s for s in snapshots if s["moves"] or s["mine"] or not s["watching"]][:3]
        players = len(bots)
        assert all(s["seats"] == players for s in drawn if s["board"])
        # Until the game's module has loaded the table says it is loading (how many versions arrive
        # meanwhile is the machine's timing); from then on every drawing has a board with something on it.
        first_board = next(i for i, s in enumerate(drawn) if s["board"])
        assert all(s["loading"] and not s["board"] for s in drawn[:first_board]), drawn[:first_board + 1]
        assert all(s["board"] and not s["loading"] for s in drawn[first_board:]), drawn[first_board:][:3]
        # Live from the start to the end: every version, one after the other (Speedster's
        # versions count resolved outcomes, several at a time).
        versions = sorted({s["version"] for s in drawn})
        assert versions[-1] == summary["version"] and drawn[-1]["end"]
        if game != "zangle-speedster":
            # From the first moves (the bots wait 0.2 s a move; a loaded machine may take a second to connect).
            assert versions[0] <= 5 < versions[-1], versions
            assert versions == list(range(versions[0], versions[-1] + 1)), versions
            # No card of any seat's hand that no public record has named, at any version.
            hidden = _hidden_cards(game, rules, slow_server.db, table)
            assert len(hidden) == summary["version"] + 1
            leaks = [(s["version"], sorted(set(s["cards"]) & hidden[s["version"]])) for s in drawn
                     if set(s["cards"]) & hidden[s["version"]]]
            assert not leaks, leaks[:3]
            if game != "zangle":  # Zangle has no hidden card
                assert any(hidden[s["version"]] for s in drawn)
        else:
            assert len(versions) >= 3, versions
        # The end: the server's scores, and the replay one click away.
        cells = tab.page.eval_on_selector_all("#end tbody td", "cells => cells.map(c => c.textContent)")
        assert cells == [str(score) for score in summary["scores"]]
        assert tab.page.get_attribute("#replay-link", "href") == f"#/replay/{table}"
        assert tab.page.evaluate("window.fourcardsSeat") is None
        if variant != game:
            assert tab.page.query_selector(".board .card.chip") and not tab.page.query_selector(".card.fc")
        if game == "duelo":
            tab.page.click("#replay-link")
            tab.page.wait_for_selector("#replay #replay-record")
    finally:
        tab.close()


def test_the_lobby_lists_every_table_to_watch_and_the_finished_ones_to_replay(browser: Any, server: Server) -> None:
    finished = server.post("/api/tables", {"game": "duelo", "rules": {"players": 2, "hand_limit": 3},
                                           "seats": [{"kind": "bot", "bot": "category"}] * 2})["id"]
    running = server.table("four-color", {"players": 2}, ["greedy"])  # waits for its person
    _wait_terminal(server, finished)
    tab = Page(browser, server)
    try:
        tab.open()
        tab.page.wait_for_selector(f"#tables li[data-table='{finished}']")
        assert tab.page.get_attribute(f"li[data-table='{finished}'] a.watch", "href") == f"#/watch/{finished}"
        assert tab.page.get_attribute(f"li[data-table='{finished}'] a.replay", "href") == f"#/replay/{finished}"
        assert not tab.page.query_selector(f"li[data-table='{finished}'] a[href^='#/join/']")
        assert tab.page.get_attribute(f"li[data-table='{running}'] a.watch", "href") == f"#/watch/{running}"
        assert tab.page.query_selector(f"li[data-table='{running}'] a[href='#/join/{running}']")
        assert not tab.page.query_selector(f"li[data-table='{running}'] a.replay")
        # A running table has no replay yet: the page says so and offers to watch it.
        tab.open(f"#/replay/{running}")
        tab.page.wait_for_selector(f"text={catalog('en')['error.not_finished']}")
        tab.page.click("#watch-link")
        tab.page.wait_for_selector("#watching")
        tab.page.wait_for_selector(".board")
        assert not tab.page.query_selector("#actions, #hint")
        # Watching a table one holds a seat of is watching too: no hand, no moves.
        assert tab.page.evaluate("window.fourcardsSeat") is None
    finally:
        tab.errors = [e for e in tab.errors if "409" not in e]  # the replay asked too early
        tab.close()


def test_a_private_table_is_shared_by_its_invitation_link(browser: Any, server: Server) -> None:
    host, guest, watcher = Page(browser, server), Page(browser, server), Page(browser, server)
    english = catalog("en")
    try:
        host.open()
        host.page.wait_for_selector("#create-form")
        host.page.select_option("#game", "duelo")
        host.page.fill("#rule-hand_limit", "4")
        host.page.select_option("#seat-1", "human")
        host.page.check("#private")
        host.page.click("#create-form button[type=submit]")
        host.page.wait_for_selector(".seat.mine")
        table = host.page.evaluate("location.hash").split("/")[-1]
        # The invitation link, shown to be copied.
        link = host.page.input_value("#invite-link")
        match = re.fullmatch(re.escape(server.url) + r"/#/join/" + table + r"\?invite=([\w%-]+)", link)
        assert match, link
        invite = urllib.parse.unquote(match.group(1))
        assert server.get(f"/api/tables/{table}?invite={invite}")["private"] is True
        # Not in anyone's lobby, and its plain link does not open it.
        assert table not in {t["id"] for t in server.get("/api/tables")["tables"]}
        guest.open()
        guest.page.wait_for_selector("#tables h2")
        guest.page.wait_for_selector("#tables ul.tables, #tables p.empty")
        assert not guest.page.query_selector(f"#tables [data-table='{table}']")
        guest.open(f"#/join/{table}")
        guest.page.wait_for_selector(f"text={english['error.unknown_table']}")
        # The invitation link takes the free seat, in another browser.
        guest.page.goto(link)
        guest.page.wait_for_selector(f"text={english['join.private']}")
        guest.page.click("text=" + english["join.seat"].replace("{n}", "2"))
        guest.page.wait_for_selector(".seat.mine")
        assert guest.page.evaluate("window.fourcardsSeat") == 1
        assert server.get(f"/api/tables/{table}?invite={invite}")["seats"][1]["taken"] is True
        # A third person watches through the same link.
        watcher.page.goto(link)
        watcher.page.click("#watch-link")
        watcher.page.wait_for_selector("#watching")
        watcher.page.wait_for_selector(".board")
        assert "invite=" in watcher.page.evaluate("location.hash")
        # The two play the match out; the spectator sees the end and the replay (with the invitation).
        for _ in range(200):
            if host.page.query_selector("#end") and guest.page.query_selector("#end"):
                break
            for tab in (host, guest):
                if tab.page.query_selector("#actions button.action:not([disabled])"):
                    tab.play(moves=1)
            host.page.wait_for_timeout(20)
        watcher.page.wait_for_selector("#end")
        assert not watcher.page.query_selector("#actions, #hint")
        watcher.page.click("#replay-link")
        watcher.page.wait_for_selector("#replay #replay-record")
        watcher.page.click("#replay-last")
        watcher.page.wait_for_selector("#replay-end #end")
        summary = server.get(f"/api/tables/{table}?invite={invite}")
        cells = watcher.page.eval_on_selector_all("#end tbody td", "cells => cells.map(c => c.textContent)")
        assert cells == [str(score) for score in summary["scores"]]
    finally:
        guest.errors = [e for e in guest.errors if "404" not in e]  # the plain link of a private table
        for tab in (host, guest, watcher):
            tab.close()


def test_the_replay_steps_through_every_record_to_the_end(browser: Any, server: Server) -> None:
    table = server.post("/api/tables", {"game": "gang-of-four", "rules": {"players": 3, "target_score": 1},
                                        "seats": [{"kind": "bot", "bot": "greedy"}] * 3})["id"]
    summary = _wait_terminal(server, table)
    replay = server.get(f"/api/tables/{table}/replay")
    records = replay["records"]
    count = len(records)
    assert count > 3
    assert replay["boards"] is True and len(replay["record_steps"]) == count
    hidden = _hidden_cards("gang-of-four", {"players": 3, "target_score": 1}, server.db, table)
    board_cards = "cs => cs.map(c => c.dataset.card)"
    boards_seen: set[str] = set()
    tab = Page(browser, server)

    def check_board(step: int) -> None:
        """The public table after the actions up to this step: the server's board, no hidden card."""
        at = 0 if step == 0 else replay["record_steps"][step - 1]
        tab.page.wait_for_selector(f"#replay-board[data-step='{at}']:not([aria-busy])")
        drawn = tab.page.eval_on_selector_all("#replay-board [data-card]", board_cards)
        sent = server.get(f"/api/tables/{table}/replay/{at}")
        assert sent["step"] == at and set(drawn) <= _words(sent["view"]), (step, drawn)
        assert not set(drawn) & hidden[at], (step, sorted(set(drawn) & hidden[at]))
        boards_seen.add(tab.page.inner_html("#replay-board"))
        # The seats' scores are those at that step.
        scores = tab.page.eval_on_selector_all("ol.seats li .score", "cs => cs.map(c => c.textContent)")
        assert len(scores) == 3 and all(str(points) in text for points, text in zip(sent["scores"], scores))

    try:
        tab.open(f"#/replay/{table}")
        tab.page.wait_for_selector("#replay-record[data-index='-1']")
        check_board(0)
        english = catalog("en")
        assert tab.page.inner_text("#replay-step") == english["replay.step"].format(step=0, count=count)
        assert tab.page.is_disabled("#replay-first") and tab.page.is_disabled("#replay-previous")
        assert not tab.page.query_selector("#end")
        for step in range(1, count + 1):
            tab.page.click("#replay-next")
            tab.page.wait_for_selector(f"#replay-record[data-index='{step - 1}']")
            record = records[step - 1]
            assert tab.page.get_attribute("#replay-record", "data-kind") == record["kind"]
            assert tab.page.inner_text("#replay-step") == english["replay.step"].format(step=step, count=count)
            line = tab.page.inner_text("#replay-record").strip()
            assert line and line != "h.other", record
            # Drawn from the record's fields: its cards as cards, in order.
            shown = tab.page.eval_on_selector_all("#replay-record [data-card]", "cs => cs.map(c => c.dataset.card)")
            expected = record.get("cards") or ([record["card"]] if record.get("card") else [])
            assert shown == expected, (record, shown)
            # The last step, and only it, shows the end.
            assert bool(tab.page.query_selector("#end")) == (step == count)
            check_board(step)
        assert len(boards_seen) >= 5  # the table changes as the match goes (a pass may leave it as it was)
        assert tab.page.is_disabled("#replay-next") and tab.page.is_disabled("#replay-last")
        cells = tab.page.eval_on_selector_all("#end tbody td", "cells => cells.map(c => c.textContent)")
        assert cells == [str(score) for score in summary["scores"]]
        # The slider and the first button move too.
        tab.page.fill("#replay-slider", str(count // 2))
        tab.page.wait_for_selector(f"#replay-record[data-index='{count // 2 - 1}']")
        check_board(count // 2)
        tab.screenshot("replay-middle.png")
        assert not tab.page.query_selector("#end")
        tab.page.click("#replay-first")
        tab.page.wait_for_selector("#replay-record[data-index='-1']")
        check_board(0)
        tab.screenshot("replay.png")
    finally:
        tab.close()


# -- Four Color's characters ship with the page --------------------------------------------------

#: Font folders with Latin fonts only; the browser below sees nothing else.
LATIN_FONTS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"),
               Path("/usr/share/fonts/truetype/liberation2")]
FC_CHARACTERS = "帥仕相俥傌炮兵將士象車馬包卒"


def test_the_page_ships_the_four_color_characters_and_its_font_s_licence() -> None:
    """The @font-face asks for exactly the cards' characters; the font is a few KB, with its licence."""
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    face = re.search(r"@font-face \{([^}]*)\}", css)
    assert face is not None and 'url("fonts/fourcolor-ranks.woff2")' in face.group(1)
    points = {int(p, 16) for p in re.findall(r"U\+([0-9A-F]+)", face.group(1))}
    assert points == {ord(c) for c in FC_CHARACTERS}
    assert all(c in (STATIC / "cards.js").read_text(encoding="utf-8") for c in FC_CHARACTERS)
    font = STATIC / "fonts" / "fourcolor-ranks.woff2"
    assert font.read_bytes()[:4] == b"wOF2" and 1_000 < font.stat().st_size < 12_000
    assert "SIL OPEN FONT LICENSE" in (STATIC / "fonts" / "OFL.txt").read_text(encoding="utf-8")
    assert '"Fourcards Four Color Ranks"' in re.search(r"\.card\.fc \.glyph \{[^}]*\}", css).group(0)  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def browser_without_cjk_fonts(playwright: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium whose fontconfig knows Latin fonts only, whatever fonts the machine has (as
    Debian's Chromium out of the box: no CJK font)."""
    folders = [folder for folder in LATIN_FONTS if folder.is_dir()]
    if not folders:
        pytest.fail(f"no Latin font folder among {[str(f) for f in LATIN_FONTS]} (apt-get install fonts-dejavu-core)")
    work = tmp_path_factory.mktemp("fontconfig")
    conf = work / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    + "".join(f"  <dir>{folder}</dir>\n" for folder in folders)
                    + f"  <cachedir>{work / 'cache'}</cachedir>\n</fontconfig>\n", encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    env.pop("FONTCONFIG_PATH", None)
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], env=env)
    yield chromium
    chromium.close()


#: Every Four Color card drawn by the page's own code, each twice more: its character
#: replaced by one no font has (the missing-glyph box) and by a space (nothing drawn).
FONT_PROBE = """async () => {
  const { fcCard } = await import("fourcards/cards.js");
  const box = document.createElement("div");
  box.id = "font-probe";
  box.style.cssText = "display: grid; grid-template-columns: repeat(12, 48px); grid-auto-rows: 96px; background: #fff;";
  const cell = (card, probe) => {  // whole pixels, so every cell's screenshot has the same size
    const wrap = document.createElement("div");
    wrap.style.cssText = "width: 48px; height: 96px; overflow: hidden; font-size: 16px;";
    wrap.dataset.card = card.dataset.card;
    wrap.dataset.probe = probe;
    wrap.append(card);
    box.append(wrap);
  };
  for (let code = 0; code < 28; code++) {
    for (const probe of [null, "\\uE000", "\\u00A0"]) {
      const card = fcCard(code);
      if (probe !== null) card.querySelector(".glyph").textContent = probe;
      cell(card, probe === null ? "card" : probe === "\\uE000" ? "missing" : "blank");
    }
  }
  // a CJK character that is not on any card: no font of this browser may have it
  const other = fcCard(0);
  other.querySelector(".glyph").textContent = "\\u4E00";
  cell(other, "other-cjk");
  document.body.prepend(box);
  await document.fonts.load('700 24px "Fourcards Four Color Ranks"', "\\u5E25");
  await document.fonts.ready;
  return [...box.children].map((wrap) => [wrap.dataset.card, wrap.dataset.probe,
    wrap.querySelector(".index").textContent, wrap.querySelector(".glyph").textContent]);
}"""


def test_every_four_color_rank_renders_without_a_cjk_font(browser_without_cjk_fonts: Any, server: Server) -> None:
    """Each card's character, in Chromium with no CJK font at all, is drawn from the page's
    own font: its pixels are neither the missing-glyph box nor blank, the seven ranks of a
    colour differ, and the rank's letter is on the card."""
    tab = Page(browser_without_cjk_fonts, server)
    try:
        tab.open()
        tab.page.wait_for_selector("#create-form")
        cards = tab.page.evaluate(FONT_PROBE)
        shots = [element.screenshot() for element in tab.page.query_selector_all("#font-probe > div")]
        assert len(shots) == len(cards) == 28 * 3 + 1
        by = {(name, probe): shot for (name, probe, _, _), shot in zip(cards, shots)}
        # the browser really has no CJK font: another CJK character draws the missing-glyph box
        no_cjk_font = by[("RG", "other-cjk")] == by[("RG", "missing")]
        assert no_cjk_font, "this Chromium has a CJK font, so the test could not tell the page's font from it"
        for name, probe, index, glyph in cards:
            if probe != "card":
                continue
            assert index == name[1], f"{name}: the rank's letter is not on the card"
            assert glyph in FC_CHARACTERS
            as_box, as_nothing = by[(name, "card")] == by[(name, "missing")], by[(name, "card")] == by[(name, "blank")]
            assert not as_box, f"{name}: {glyph} is drawn as the missing-glyph box"
            assert not as_nothing, f"{name}: {glyph} is drawn as nothing"
        for colour in "RGYW":
            ranks = {by[(colour + rank, "card")] for rank in "GAECHNS"}
            assert len(ranks) == 7, f"two ranks of colour {colour} look the same"
    finally:
        tab.close()


def test_a_four_color_hu_shows_the_winner_s_melds_and_the_lucky_card(browser: Any, server: Server) -> None:
    """"il giocatore può dichiarare di aver vinto ("hu") e mostrare la sua mano": after a
    round ends on a hu, the history and the board show the melds and the lucky card."""
    table = server.table("four-color", {"players": 2, "rounds": 3}, ["greedy"])
    tab = Page(browser, server)
    try:
        tab.take_seat(table)
        for _ in range(400):
            if tab.page.query_selector(".shown-hand .hu-hand .meld") or tab.page.query_selector("#end"):
                break
            tab.play(moves=1)
        shown = tab.page.query_selector(".shown-hand")
        if shown is None:  # every round of this deal ended on an empty stock: the records say so
            finished = server.get(f"/api/tables/{table}")
            pytest.fail(f"no round of table {table} ended on a hu: {json.dumps(finished)[:300]}")
        melds = tab.page.query_selector_all(".shown-hand .hu-hand .meld")
        assert melds and all(m.query_selector(".card.fc") and m.query_selector(".meld-points") for m in melds)
        text = tab.page.inner_text(".history")
        assert re.search(catalog("en")["fc.h.shows"].replace("{seat}", r".+"), text)
        lucky = tab.page.query_selector(".shown-hand .lucky")
        assert lucky is not None and ("lucky card" in lucky.inner_text() or "no lucky card" in lucky.inner_text())
    finally:
        tab.close()
