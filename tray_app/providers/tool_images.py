"""Images in a request: where a tool's images go on the wire, and how many one request carries.

A tool's images are kept on its ``tool`` message (history and the store keep them there). Neither
wire takes them there: OpenAI's chat completions accept only text in a tool message, and Ollama
reads ``images`` on every message but its models do not see them on a tool message
(ollama/ollama#16038, open; its suggested way is a user message). So every run of tool results is
followed by one ``user`` message carrying their images, after the last result: results must
follow the assistant's calls without anything in between. When the next message already is the
person's (a turn stopped, or ended at the round limit, right after tool results), the images go
into it, first, instead: servers with strict chat templates refuse two ``user`` messages in a row.

A request carries at most ``MAX_REQUEST_IMAGES`` images and ``MAX_REQUEST_IMAGE_BYTES``, the
newest kept: a chat that collected screenshots over many turns does not send them all again.
An image left out becomes a note in its message's text, so the model knows it was there.
"""

from __future__ import annotations

from tray_app.base.messages import ChatMessage, image_bytes, image_note

MAX_REQUEST_IMAGES = 8
MAX_REQUEST_IMAGE_BYTES = 20 * 1024 * 1024  # decoded bytes of all images in one request
LEFT_OUT = "left out: this request already has as many images as it may carry"


def _with_notes(message: ChatMessage, kept: list[str], dropped: list[str]) -> ChatMessage:
    notes = "\n".join(image_note(data, LEFT_OUT) for data in dropped)
    content = f"{message.content}\n{notes}" if message.content else notes
    return message.model_copy(update={"images": kept, "content": content})


def cap_images(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The messages with at most ``MAX_REQUEST_IMAGES`` images and ``MAX_REQUEST_IMAGE_BYTES``
    in all, newest first; the same list when nothing is over."""
    if not any(m.images for m in messages):
        return messages
    count = size = 0
    changed = False
    out = list(messages)
    for index in range(len(out) - 1, -1, -1):
        message = out[index]
        if not message.images:
            continue
        kept: list[str] = []
        dropped: list[str] = []
        for data in reversed(message.images):  # the last image of a message is the newest
            weight = image_bytes(data)
            if count < MAX_REQUEST_IMAGES and size + weight <= MAX_REQUEST_IMAGE_BYTES:
                kept.append(data)
                count += 1
                size += weight
            else:
                dropped.append(data)
        if dropped:
            out[index] = _with_notes(message, kept[::-1], dropped[::-1])
            changed = True
    return out if changed else messages


def _images_note(results: list[ChatMessage]) -> str:
    names = ", ".join(
        f"{message.tool_name or 'a tool'} ({len(message.images)})"
        for message in results
        if message.images
    )
    return f"The images the tool results above returned, in order: {names}."


def _images_message(results: list[ChatMessage]) -> ChatMessage:
    images = [data for message in results for data in message.images]
    return ChatMessage(role="user", content=_images_note(results), images=images)


def _merged(results: list[ChatMessage], person: ChatMessage) -> ChatMessage:
    """The person's message with the results' images (and the sentence naming them) first."""
    images = [data for message in results for data in message.images]
    note = _images_note(results)
    content = f"{note}\n\n{person.content}" if person.content else note
    return person.model_copy(update={"content": content, "images": images + person.images})


def move_tool_images(messages: list[ChatMessage]) -> list[ChatMessage]:
    """Each run of tool results without its images, and one user message after it that has
    them: the next message when it is the person's, else a new one."""
    if not any(m.images for m in messages if m.role == "tool"):
        return messages
    out: list[ChatMessage] = []
    run: list[ChatMessage] = []  # the tool results with images since the last other message
    for message in messages:
        if message.role == "tool":
            if message.images:
                run.append(message)
                message = message.model_copy(update={"images": []})
            out.append(message)
            continue
        if run and message.role == "user":
            message = _merged(run, message)
        elif run:
            out.append(_images_message(run))
        run = []
        out.append(message)
    if run:
        out.append(_images_message(run))
    return out


def wire_messages(messages: list[ChatMessage]) -> list[ChatMessage]:
    """What a provider encodes: images capped for the request, tool images after the results."""
    return move_tool_images(cap_images(messages))
