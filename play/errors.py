"""What play services raise; consumers and the API map each to a frame or a status."""

from __future__ import annotations


class PlayError(Exception):
    """A request the session cannot honour; ``message`` is shown to the player as is."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(PlayError):
    status = 404


class SessionNotFound(NotFound):
    pass


class SessionForbidden(PlayError):
    status = 403


class SessionBusy(PlayError):
    status = 409

    def __init__(self, message_id: int | None = None) -> None:
        super().__init__("A turn is already running in this session.")
        self.message_id = message_id
