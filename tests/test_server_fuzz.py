"""The server's protocol fuzzer (``tools/fuzz/fuzz_server.py``) replayed in the suite: its
corpus, hypothesis's own inputs, and the inputs of issue 27, each through the real app and
its SQLite store in-process; after every one, a normal creation, claim, join and action
must still succeed within a second, and no input may get a ``5xx`` or ``server_error``.
CI runs the atheris harness itself for a bounded time as well."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("websockets")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytestmark = pytest.mark.engine

FUZZ = Path(__file__).resolve().parent.parent / "tools" / "fuzz"


def load_driver_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fourcards_fuzz_server", FUZZ / "_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fuzz = load_driver_module()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    running = fuzz.Driver(str(tmp_path_factory.mktemp("fuzz")))
    yield running
    running.close()


def test_the_corpus_replays_clean(driver: Any) -> None:
    files = sorted((FUZZ / "corpus" / "server").glob("*"))
    assert files, "tools/fuzz/corpus/server is empty"
    for path in files:
        fuzz.one_input(driver, path.read_bytes())


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=600))
def test_any_input_leaves_normal_play_working(driver: Any, data: bytes) -> None:
    fuzz.one_input(driver, data)


def test_the_inputs_of_issue_27(driver: Any) -> None:
    """A lone surrogate in a claim's name, a seat's name, an act id, a join token; a NUL in a name."""
    async def main() -> None:
        status, body = await driver.http("POST", "/api/tables", json.dumps(
            {"game": "duelo", "seats": [{"kind": "human", "name": "\ud800"}, {"kind": "human"}]}).encode())
        assert status == 400 and b"seats[0].name" in body
        status, body = await driver.http("POST", "/api/tables", b'{"game": "duelo"}')
        table = json.loads(body)["id"]
        for name in ("\ud800", "a\x00"):
            body = json.dumps({"name": name}).encode()
            status, body = await driver.http("POST", f"/api/tables/{table}/seats/0", body)
            assert status == 400 and b"name" in body, body
        got = await driver.session([{"text": json.dumps({"type": "join", "table": table, "token": "\udc80"})},
                                    {"text": '{"type": "act", "id": "\\ud800", "version": 0, "action": 1}'}])
        errors = [m for m in got if m.get("type") == "error"]
        assert [(e["code"], e["reason"].split()[0]) for e in errors] == [("bad_message", "'token'"),
                                                                         ("bad_message", "'id'")]
        await fuzz.normal_play(driver)

    driver.run(main(), 30)
