"""The waiting helpers themselves: what they return, when they fail and what they say."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.support.waiting import eventually, eventually_async, stays, stays_async


def test_eventually_returns_the_first_truthy_value() -> None:
    answers = iter([None, 0, "", ["ready 就绪 ✅"]])
    assert eventually(lambda: next(answers), timeout=5, interval=0) == ["ready 就绪 ✅"]


def test_eventually_fails_with_the_message_and_the_last_value() -> None:
    with pytest.raises(AssertionError, match=r"the answer 答案: not met within 0\.05 s") as info:
        eventually(lambda: [], timeout=0.05, message="the answer 答案")
    assert "last value: []" in str(info.value)


def test_eventually_reports_the_state_at_the_failure() -> None:
    seen = {"n": 0}

    def count() -> bool:
        seen["n"] += 1
        return False

    with pytest.raises(AssertionError) as info:
        eventually(count, timeout=0.05, message=lambda: f"polled {seen['n']} times")
    assert f"polled {seen['n']} times" in str(info.value)


def test_ignored_errors_mean_not_yet_and_the_last_is_chained() -> None:
    calls = iter([ConnectionRefusedError("starting"), ConnectionRefusedError("still"), "up"])

    def probe() -> str:
        got = next(calls)
        if isinstance(got, BaseException):
            raise got
        return got

    assert eventually(probe, timeout=5, interval=0, ignoring=(ConnectionError,)) == "up"

    def never() -> str:
        raise ConnectionRefusedError("down")

    with pytest.raises(AssertionError) as info:
        eventually(never, timeout=0.05, ignoring=(ConnectionError,))
    assert isinstance(info.value.__cause__, ConnectionRefusedError)


def test_other_errors_fail_at_once() -> None:
    def broken() -> bool:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        eventually(broken, timeout=60, ignoring=(ConnectionError,))


def test_stays_passes_while_the_condition_holds_throughout() -> None:
    polls = {"n": 0}

    def quiet() -> bool:
        polls["n"] += 1
        return True

    stays(quiet, for_=0.1, interval=0.01)
    assert polls["n"] > 1  # checked over the window, not once


def test_stays_fails_when_the_condition_breaks_inside_the_window() -> None:
    """What a single sleep before one check could miss: a change that comes and goes."""
    flag = threading.Event()
    changed = {"at": None}

    def blip() -> None:
        flag.set()
        changed["at"] = "set"
        eventually(lambda: changed["at"] == "seen", timeout=10)
        flag.clear()

    worker = threading.Thread(target=blip)
    worker.start()

    def untouched() -> bool:
        if flag.is_set():
            changed["at"] = "seen"
            return False
        return True

    try:
        with pytest.raises(AssertionError, match="nothing popped up: stopped holding"):
            stays(untouched, for_=30, message="nothing popped up")
    finally:
        worker.join(10)
    assert not flag.is_set()  # the change was gone again: a check after the window would pass


async def test_the_async_twins_let_the_loop_run() -> None:
    done = asyncio.Event()
    asyncio.get_running_loop().call_soon(done.set)
    assert await eventually_async(done.is_set, timeout=5)
    await stays_async(done.is_set, for_=0.05)
    with pytest.raises(AssertionError, match="stopped holding"):
        await stays_async(lambda: not done.is_set(), for_=5)
