"""A tool's images are stored once: with its call's result (the card shows them from there).

The tool message the model reads needs them too (``images``, for a vision model), but storing
them there as well put every screenshot in the chat store twice. So the stored tool message
holds a reference per image (``card-image:<call id>/<n>``) and the turn puts the data back
when it reads the chat (``resolved``), reading only the calls of the assistant messages whose
results refer to them (the one before each tool message: an imported chat's renamed message
ids do not break a reference). A chat stored before this keeps its data on the message and
reads as it was. The page never needed the message's copy (``core/session_service``), and
the Markdown export counts images, so both read references as they read data; the JSON
export has each image once, in its call's result, as the store does.
"""

from __future__ import annotations

from tray_app.base.messages import tool_result_images
from tray_app.store.records import ChatRepository, MessageRecord

PREFIX = "card-image:"


def stored_form(message: MessageRecord, call_id: str) -> MessageRecord:
    """The tool message as the store keeps it: a reference in place of each image."""
    if not message.images:
        return message
    refs = [f"{PREFIX}{call_id}/{n}" for n in range(len(message.images))]
    return message.model_copy(update={"images": refs})


def _parse(ref: str) -> tuple[str, int] | None:
    if not ref.startswith(PREFIX):
        return None
    call_id, _, number = ref[len(PREFIX) :].rpartition("/")
    return (call_id, int(number)) if call_id and number.isdigit() else None


def _owners(records: list[MessageRecord]) -> set[str]:
    """The assistant messages whose tool results refer to stored images."""
    owners: set[str] = set()
    assistant: str | None = None
    for record in records:
        if record.role == "assistant":
            assistant = record.id
        elif assistant and any(ref.startswith(PREFIX) for ref in record.images):
            owners.add(assistant)  # a tool message (only those get references)
    return owners


def resolved(
    records: list[MessageRecord], chats: ChatRepository, session_id: str
) -> list[MessageRecord]:
    """``records`` with each image reference replaced by its data from the call's result; a
    reference whose call or image is gone is left out (its result's text still lists it)."""
    owners = _owners(records)
    if not owners:
        return records
    images = {
        call.call_id: tool_result_images(call.result or {})
        for call in chats.tool_calls(session_id, owners)
    }
    out: list[MessageRecord] = []
    for record in records:
        if record.role != "tool" or not any(ref.startswith(PREFIX) for ref in record.images):
            out.append(record)
            continue
        data: list[str] = []
        for ref in record.images:
            parsed = _parse(ref)
            if parsed is None:
                data.append(ref)  # stored data, not a reference
            elif parsed[1] < len(found := images.get(parsed[0], [])):
                data.append(found[parsed[1]])
        out.append(record.model_copy(update={"images": data}))
    return out
