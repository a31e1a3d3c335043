"""Where web_fetch may connect: a URL's host resolved once, and that address checked.

The name is resolved here, once, and the request is then sent to that very address
(``web_pinned``), so a name that answers a public address to the check and a private one to the
connection (DNS rebinding) reaches nothing. Loopback, private, link-local, multicast, reserved
and unspecified addresses (IPv4, IPv6 and IPv4-mapped IPv6; decimal and octal spellings resolve
to the same address first) are refused unless ``host`` or ``host:port`` is in the user's
``web_allowed_hosts``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

RESOLVE_TIMEOUT_S = 10.0
DEFAULT_PORTS = {"http": 80, "https": 443}


class AddressRefused(Exception):
    """The URL may not be fetched; ``code`` and ``params`` say why (``tool_errors``)."""

    def __init__(self, message: str, code: str, **params: str) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Target:
    """A URL checked and resolved: connect to ``ip`` on ``port``, saying ``host``."""

    url: str
    scheme: str
    host: str
    port: int
    ip: str


def host_key(host: str, port: int) -> tuple[str, str]:
    """The two spellings an allow-list entry may use for this host: ``host`` and ``host:port``
    (an IPv6 host in brackets), lowercase."""
    name = host.lower().rstrip(".")
    shown = f"[{name}]" if ":" in name else name
    return shown, f"{shown}:{port}"


def is_allowed_host(host: str, port: int, allowed: Iterable[str]) -> bool:
    wanted = set(host_key(host, port))
    return any(entry.strip().lower().rstrip(".") in wanted for entry in allowed)


def forbidden(ip: str) -> bool:
    """An address only the user may open to the model: not a public unicast one."""
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return forbidden(str(mapped))
    return bool(
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or not address.is_global
    )


def parse_url(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an http(s) URL with a host; anything else is refused."""
    try:
        parts = httpx.URL(url.strip())
        host = parts.raw_host.decode("ascii").lower()  # an international name in punycode
    except (httpx.InvalidURL, UnicodeError) as exc:
        raise AddressRefused(f"not a valid URL: {exc}", "web_bad_url", url=url[:500]) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise AddressRefused(
            "only http:// and https:// URLs can be fetched", "web_bad_url", url=url[:500]
        )
    if not host:
        raise AddressRefused("the URL has no host", "web_bad_url", url=url[:500])
    return scheme, host, parts.port or DEFAULT_PORTS[scheme]


def resolve_once(host: str, port: int, timeout: float = RESOLVE_TIMEOUT_S) -> str:
    """The first address ``host`` resolves to, within ``timeout`` seconds."""
    found: list[str] = []
    failed: list[BaseException] = []

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found.extend(str(info[4][0]) for info in infos)
        except (OSError, UnicodeError) as exc:
            failed.append(exc)

    worker = threading.Thread(target=lookup, name="web-resolve", daemon=True)
    worker.start()
    worker.join(timeout)
    if not found:
        reason = str(failed[0]) if failed else "the name lookup took too long"
        raise AddressRefused(f"cannot resolve {host}: {reason}", "web_unresolved", host=host)
    return found[0]


def check_url(url: str, allowed_hosts: Iterable[str]) -> Target:
    """``url`` resolved once and checked against the address policy."""
    scheme, host, port = parse_url(url)
    allowed = is_allowed_host(host, port, allowed_hosts)
    try:
        literal: str | None = str(ipaddress.ip_address(host))
    except ValueError:
        literal = None
    if literal is not None and not allowed and forbidden(literal):
        raise AddressRefused(
            f"{host} is a local or private address; the user can allow it in the "
            "web_allowed_hosts setting",
            "web_address_refused",
            host=host,
            address=literal,
        )
    ip = literal or resolve_once(host, port)
    if not allowed and forbidden(ip):
        raise AddressRefused(
            f"{host} resolves to {ip}, a local or private address; the user can allow it in "
            "the web_allowed_hosts setting",
            "web_address_refused",
            host=host,
            address=ip,
        )
    return Target(url=url.strip(), scheme=scheme, host=host, port=port, ip=ip)
