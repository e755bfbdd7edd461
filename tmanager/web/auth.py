"""The arbiter's password, sessions and login throttling for the event pages.

The password is kept only as a salted scrypt hash in ``EVENT.password`` beside
the event file (mode 0600), written by ``tmanager event set-password``. A
login opens a server-side :class:`Session` named by a random token that only
the session cookie carries; each session has its own CSRF token, which every
form sends back. :class:`LoginThrottle` makes each failed login cost that client
time, and :class:`KnownDevices` lets the browsers that logged in before through
ahead of strangers' guesses. Nothing here imports the web stack:
the CLI uses the password part alone.
"""

from __future__ import annotations

import base64
import collections
import hashlib
import hmac
import secrets
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tmanager.errors import ConfigError, StateError
from tmanager.files import atomic_write, expect_file, read_text

#: scrypt cost: 2**17 blocks of 8 × 128 bytes (128 MiB, about 0.35 s here), one lane (OWASP's minimum).
SCRYPT_N = 2**17
SCRYPT_R = 8
SCRYPT_P = 1
#: Passwords shorter than this are refused.
MIN_PASSWORD = 8
#: Nor longer than this: the login tries none longer (an scrypt of a huge text would be a cheap way to keep the
#: server busy), so a longer one, once set, could never log in.
MAX_PASSWORD = 1024
#: Bytes of random salt and of derived key.
SALT_BYTES = 16
KEY_BYTES = 32
#: A session ends after this long without a request, and in any case after :data:`SESSION_LIFETIME`.
SESSION_IDLE = 4 * 3600.0
SESSION_LIFETIME = 16 * 3600.0
#: At most this many sessions at once; the least recently used goes first.
MAX_SESSIONS = 32
#: At most this many browsers are remembered as having logged in (see :class:`KnownDevices`).
MAX_DEVICES = 64
_PREFIX = "scrypt"


def password_path(event_path: Path) -> Path:
    """``EVENT.password`` beside the event file."""
    return event_path.with_suffix(".password")


def _derive(password: str, salt: bytes, *, n: int, r: int, p: int) -> bytes:
    # The same characters typed on a phone or a terminal can arrive composed differently.
    data = unicodedata.normalize("NFC", password).encode("utf-8")
    return hashlib.scrypt(data, salt=salt, n=n, r=r, p=p, maxmem=2 * 128 * r * (n + p) + (1 << 20), dklen=KEY_BYTES)


@dataclass(frozen=True, slots=True)
class PasswordHash:
    """A salted scrypt hash with its cost parameters, as stored in the password file."""

    n: int
    r: int
    p: int
    salt: bytes
    key: bytes

    @classmethod
    def make(cls, password: str) -> PasswordHash:
        """Hash ``password`` with a fresh salt and the current cost."""
        salt = secrets.token_bytes(SALT_BYTES)
        return cls(SCRYPT_N, SCRYPT_R, SCRYPT_P, salt, _derive(password, salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P))

    def matches(self, password: str) -> bool:
        """Whether ``password`` is the one hashed (in constant time)."""
        return hmac.compare_digest(self.key, _derive(password, self.salt, n=self.n, r=self.r, p=self.p))

    def dumps(self) -> str:
        """``scrypt$n=…,r=…,p=…$SALT$KEY`` (base64), one line."""
        encode = base64.b64encode
        return f"{_PREFIX}$n={self.n},r={self.r},p={self.p}${encode(self.salt).decode()}${encode(self.key).decode()}\n"

    @classmethod
    def loads(cls, text: str, file: Path | None = None) -> PasswordHash:
        """Parse :meth:`dumps`' form; a :class:`ConfigError` names the file if it is not one."""
        try:
            prefix, params, salt, key = text.strip().split("$")
            values = dict(item.split("=", 1) for item in params.split(","))
            n, r, p = int(values["n"]), int(values["r"]), int(values["p"])
            decoded = cls(n, r, p, base64.b64decode(salt, validate=True), base64.b64decode(key, validate=True))
        except (ValueError, KeyError):
            decoded = None
        # Bounds keep a damaged file from asking for more memory than the machine has.
        if (
            decoded is None
            or prefix != _PREFIX
            or not (
                2 <= n <= 2**20 and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16 and decoded.salt and decoded.key
            )
        ):
            raise ConfigError(
                "not a tmanager password file", file=file, hint="set it again with `tmanager event set-password`"
            )
        return decoded


def set_password(event_path: Path, password: str) -> Path:
    """Store the hash of ``password`` for the event (mode 0600); returns the password file."""
    # With the way out, as every refusal: they said what was wrong and no more.
    if len(password) < MIN_PASSWORD:
        raise StateError(f"the password must have at least {MIN_PASSWORD} characters", hint="choose a longer one")
    if len(password) > MAX_PASSWORD:
        raise StateError(f"the password must have at most {MAX_PASSWORD} characters, not {len(password)}",
                         hint="choose a shorter one")
    if not event_path.is_file():
        raise ConfigError("no such event file", file=event_path, hint="create one with `tmanager event new`")
    target = password_path(event_path)
    atomic_write(target, PasswordHash.make(password).dumps(), mode=0o600)
    return target


def read_password(event_path: Path) -> PasswordHash | None:
    """The stored hash, or ``None`` while no password is set."""
    target = password_path(event_path)
    if not expect_file(target):
        return None
    return PasswordHash.loads(read_text(target, kind="password", create=None), target)


# --- sessions ----------------------------------------------------------------------------------


@dataclass
class Session:
    """A logged-in arbiter: ``csrf`` goes into every form; ``flash`` holds messages for the next page."""

    token: str
    csrf: str
    created: float
    seen: float
    flash: list[str] = field(default_factory=list)


class Sessions:
    """Server-side sessions in memory: they end with the server, on logout, on expiry or a new password."""

    def __init__(self) -> None:
        self._sessions: collections.OrderedDict[str, Session] = collections.OrderedDict()

    def open(self, *, now: float | None = None) -> Session:
        """A new session with fresh random tokens."""
        now = time.time() if now is None else now
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now, now)
        self._sessions[session.token] = session
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return session

    def get(self, token: str | None, *, now: float | None = None) -> Session | None:
        """The live session of ``token`` (its idle time starts again), or ``None``."""
        now = time.time() if now is None else now
        session = self._sessions.get(token or "")
        if session is None:
            return None
        if _expired(session, now):
            del self._sessions[session.token]
            return None
        session.seen = now
        self._sessions.move_to_end(session.token)
        return session

    def holds(self, session: Session, *, now: float | None = None) -> bool:
        """Whether ``session`` is still open (not closed, cleared nor expired), without counting a request: an
        open page's live updates are not the arbiter's doing."""
        now = time.time() if now is None else now
        return self._sessions.get(session.token) is session and not _expired(session, now)

    def close(self, token: str) -> None:
        """End one session."""
        self._sessions.pop(token, None)

    def clear(self) -> None:
        """End every session (the password changed)."""
        self._sessions.clear()


def _expired(session: Session, now: float) -> bool:
    return now - session.seen > SESSION_IDLE or now - session.created > SESSION_LIFETIME


def same_token(given: str | None, expected: str) -> bool:
    """A CSRF token check in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def same_origin(*, host: str, origin: str | None, referer: str | None) -> bool:
    """Whether a POST comes from a page of this server: its ``Origin`` (else its ``Referer``) names ``host``.

    A request with neither is refused: browsers send ``Origin`` with every form
    POST, so only other programs leave both out.
    """
    source = origin if origin and origin != "null" else referer
    if not source or not host:
        return False
    parts = urlsplit(source)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


# --- throttling -------------------------------------------------------------------------------


class LoginThrottle:
    """Backoff after failed logins, per client: each failure makes that client wait ``base``, then twice
    as long after the next failure, up to ``cap`` seconds; a success, or ``window`` seconds without a
    failure, clears its count.

    Only the client that failed waits: failures from other addresses never lock anyone else out (the
    arbiter least of all). Guessing from many addresses at once gains little anyway: passwords are
    checked one at a time, each costing an scrypt.
    """

    def __init__(self, *, base: float = 1.0, cap: float = 300.0, window: float = 600.0) -> None:
        self.base, self.cap, self.window = base, cap, window
        self._clients: dict[str, tuple[int, float]] = {}

    def _delay(self, count: int) -> float:
        return min(self.base * 2.0 ** min(count - 1, 32), self.cap)

    def wait(self, client: str, *, now: float | None = None) -> float:
        """Seconds before ``client`` may try again (0: now)."""
        now = time.time() if now is None else now
        count, last = self._clients.get(client, (0, 0.0))
        return max(0.0, last + self._delay(count) - now) if count else 0.0

    def failed(self, client: str, *, now: float | None = None) -> None:
        """Count a wrong password from ``client``."""
        now = time.time() if now is None else now
        count, last = self._clients.get(client, (0, 0.0))
        if count and now - last > self.window:
            count = 0  # a long quiet spell forgives old mistakes
        self._clients[client] = (count + 1, now)
        if len(self._clients) > 10_000:  # keep memory bounded against address-hopping guessers
            self._clients = {c: v for c, v in self._clients.items() if now - v[1] <= self.window}

    def succeeded(self, client: str) -> None:
        """Forget ``client``'s failures."""
        self._clients.pop(client, None)

    def clear(self) -> None:
        """Forget every failure (the password was set again)."""
        self._clients.clear()


class KnownDevices:
    """The browsers that have logged in here: each got a random token (the cookie ``tmanager_device``) at its
    first login. Their logins are checked in a queue of their own and back off by that token, so that a
    crowd of strangers guessing (each of their tries costs an scrypt, one at a time) never keeps the
    arbiter waiting. In memory only, like the sessions; the oldest go first beyond :data:`MAX_DEVICES`."""

    def __init__(self) -> None:
        self._tokens: collections.OrderedDict[str, None] = collections.OrderedDict()

    def issue(self) -> str:
        """A token for a browser that has just logged in."""
        token = secrets.token_urlsafe(32)
        self._tokens[token] = None
        while len(self._tokens) > MAX_DEVICES:
            self._tokens.popitem(last=False)
        return token

    def known(self, token: str | None) -> bool:
        """Whether ``token`` is one issued here (and not forgotten since)."""
        if not token or token not in self._tokens:
            return False
        self._tokens.move_to_end(token)
        return True

    def clear(self) -> None:
        """Forget every device (the password was set again)."""
        self._tokens.clear()
