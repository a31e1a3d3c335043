"""429 and 503: the status is kept, a short ``Retry-After`` is waited for with a notice (twice at
most), and the wait can be stopped. Over real HTTP against both fake servers."""

from __future__ import annotations

import asyncio
import time
from email.utils import formatdate

import pytest

from tests.fakes._server import FakeServer
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import busy_turn, error_turn, text_turn
from tests.providers._helpers import request
from tray_app.base.errors import ProviderHTTPError, ServerBusy
from tray_app.providers._http import parse_retry_after
from tray_app.providers.base import Provider, ProviderNotice, StreamDelta, StreamDone


async def drain(provider: Provider) -> tuple[list[object], BaseException | None]:
    items: list[object] = []
    try:
        async for item in provider.chat(request()):
            items.append(item)
    except Exception as exc:
        return items, exc
    return items, None


def where(fake: FakeServer) -> str:
    name = "Ollama" if isinstance(fake, FakeOllama) else "the OpenAI-compatible server"
    return f"{name} at {fake.url}"


@pytest.mark.parametrize("status", [429, 503])
async def test_one_busy_answer_then_success_shows_a_notice_and_the_answer(
    served: tuple[FakeServer, Provider], status: int
) -> None:
    fake, provider = served
    fake.script(busy_turn(status, retry_after="0"), text_turn("Now 你好 🌍."))
    items, error = await drain(provider)
    assert error is None
    notice = items[0]
    assert isinstance(notice, ProviderNotice)
    assert (notice.status, notice.attempt, notice.attempts) == (status, 1, 2)
    assert notice.retry_in_s == 0
    assert f"busy (HTTP {status})" in notice.message and "retry 1 of 2" in notice.message
    text = "".join(i.text for i in items if isinstance(i, StreamDelta))
    assert text == "Now 你好 🌍."
    assert isinstance(items[-1], StreamDone)
    assert len(fake.chat_requests) == 2
    assert fake.chat_requests[0] == fake.chat_requests[1], "the same request, sent again"


async def test_a_retry_after_in_seconds_is_waited_for(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(busy_turn(429, retry_after="1"), text_turn("ok"))
    items, error = await drain(provider)
    assert error is None
    assert isinstance(items[0], ProviderNotice) and items[0].retry_in_s == 1
    assert "trying again in 1 s" in items[0].message


async def test_a_retry_after_http_date_is_honoured(served: tuple[FakeServer, Provider]) -> None:
    fake, provider = served
    fake.script(
        busy_turn(503, retry_after=formatdate(time.time() + 1, usegmt=True)), text_turn("ok")
    )
    items, error = await drain(provider)
    assert error is None
    notice = items[0]
    assert isinstance(notice, ProviderNotice) and 0 <= notice.retry_in_s <= 2


async def test_still_busy_after_two_retries_fails_naming_the_status(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(*[busy_turn(503, "overloaded", retry_after="0")] * 3, text_turn("never"))
    items, error = await drain(provider)
    assert [type(i) for i in items] == [ProviderNotice, ProviderNotice]
    assert [i.attempt for i in items if isinstance(i, ProviderNotice)] == [1, 2]
    assert isinstance(error, ServerBusy) and error.status == 503
    assert str(error) == (
        f"{where(fake)} is busy (HTTP 503 Service Unavailable): overloaded. "
        "It was still busy after 2 retries."
    )
    assert len(fake.chat_requests) == 3 and fake.pending_turns == 1


@pytest.mark.parametrize("status", [429, 503])
async def test_busy_without_retry_after_fails_at_once_keeping_the_status(
    served: tuple[FakeServer, Provider], status: int
) -> None:
    fake, provider = served
    fake.script(busy_turn(status, "slow down"), text_turn("never"))
    items, error = await drain(provider)
    assert items == []
    assert isinstance(error, ServerBusy) and error.status == status
    assert error.retry_after is None
    assert str(error).startswith(f"{where(fake)} is busy (HTTP {status} ")
    assert str(error).endswith("): slow down")
    assert len(fake.chat_requests) == 1


async def test_a_retry_after_over_30_s_is_not_waited_for(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(busy_turn(429, "quota", retry_after="3600"), text_turn("never"))
    items, error = await drain(provider)
    assert items == []
    assert isinstance(error, ServerBusy) and error.status == 429
    assert str(error) == (
        f"{where(fake)} is busy (HTTP 429 Too Many Requests): quota. It asked to wait 3600 s, "
        "longer than the 30 s this app waits; try again later."
    )


async def test_other_statuses_keep_their_code(served: tuple[FakeServer, Provider]) -> None:
    fake, provider = served
    fake.script(error_turn(502, "upstream 坏了"), text_turn("never"))
    _, error = await drain(provider)
    assert type(error) is ProviderHTTPError and error.status == 502
    assert str(error) == "upstream 坏了"
    assert len(fake.chat_requests) == 1, "only 429 and 503 are retried"


async def test_stop_during_the_wait_ends_it_at_once(served: tuple[FakeServer, Provider]) -> None:
    fake, provider = served
    fake.script(busy_turn(503, retry_after="30"), text_turn("never"))
    noticed = asyncio.Event()

    async def consume() -> None:
        async for item in provider.chat(request()):
            if isinstance(item, ProviderNotice):
                noticed.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(noticed.wait(), 10)
    task.cancel()
    # The wait is 30 s; the cancelled task must be done long before that.
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    assert len(fake.chat_requests) == 1 and fake.pending_turns == 1


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("0", 0.0),
        ("7", 7.0),
        (" 2.5 ", 2.5),
        ("-4", 0.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # in the past: at once
        ("", None),
        ("soon", None),
        ("nan", None),
        ("inf", None),
        ("Wed, 21 Oct 2015 07:28:00", None),  # no zone: not an HTTP date
    ],
)
def test_retry_after_values(header: str, seconds: float | None) -> None:
    assert parse_retry_after(header) == seconds


def test_retry_after_as_a_future_http_date() -> None:
    now = 1_800_000_000.0
    assert parse_retry_after(formatdate(now + 20, usegmt=True), now=now) == 20.0


def test_retry_after_far_beyond_any_calendar_is_ignored() -> None:
    assert parse_retry_after("Fri, 31 Dec 99999 23:59:59 GMT") is None
    assert parse_retry_after("1e400") is None
