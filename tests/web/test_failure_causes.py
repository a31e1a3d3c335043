"""What a failed send says: the real cause (server down vs no model), code shown as code, one
onboarding card, and Retry that brings the chat back once the cause is gone."""

from __future__ import annotations

import socket

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sending_with_the_server_down_says_the_server_is_down(make_app: AppFactory) -> None:
    app = make_app(endpoint=f"http://127.0.0.1:{closed_port()}", default_model="")
    page = app.page
    app.send("Hello?")
    notice = page.locator(".notice.error").last
    expect(notice).to_be_visible()
    app.screenshot("failure-server-down")
    expect(notice).not_to_contain_text("No model")
    expect(notice).to_contain_text("cannot be reached")
    # Code in the error texts is code, not backticks.
    assert "`" not in notice.inner_text()
    card = page.locator("#onboarding .ob-card")
    expect(card.locator("h2")).to_have_text("Ollama is not running")
    # The card says it once; the server's own words (which repeat it) are folded away.
    details = card.locator("details.ob-details")
    expect(details.locator(".ob-error")).to_be_hidden()
    details.locator("summary").click()
    expect(details.locator(".ob-error code")).to_have_text("ollama serve")
    assert "`" not in details.inner_text()


def test_sending_without_any_model_says_so_and_retry_refreshes_the_model(
    make_app: AppFactory,
) -> None:
    with FakeOllama(models={}) as fake:
        app = make_app(fake, default_model="")
        page = app.page
        expect(page.locator("#onboarding .ob-card h2")).to_have_text("No model installed yet")
        app.send("Hello?")
        notice = page.locator(".notice.error").last
        expect(notice).to_contain_text("No model is installed")
        expect(notice.locator(".notice-detail code")).to_have_text("ollama pull qwen3:8b")
        expect(page.locator("#model-name")).to_have_text("No model")
        # The failure made the page look at the server again (boot looked once).
        eventually(lambda: sum("api/list_models" in r for r in app.harness.requests) >= 2)
        expect(page.locator("#onboarding .ob-card h2")).to_have_text("No model installed yet")
        # A model appears (pulled in a terminal, say); Retry on the card finds it.
        fake.models["qwen3:8b"] = ["completion", "tools"]
        page.locator("#onboarding").get_by_role("button", name="Retry").click()
        expect(page.locator("#onboarding")).to_be_hidden()
        expect(page.locator("#model-name")).to_have_text("qwen3:8b")
