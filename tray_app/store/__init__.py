"""Durable state: settings, chats, secrets."""
