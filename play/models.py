"""Play sessions as rows: a session, its messages with state snapshots, checkpoints, personas and
each user's own model provider (seed 004 "useYumina()" chat and session APIs, seed 001 run modes).

A message keeps the engine state after it (``state``), so reverting, swiping and branching
restore a snapshot instead of replaying rules. ``content`` is what players see; ``raw`` is the
model's reply with its directives and stays on the server.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models

MODES = ("live", "offline", "record", "replay")
MESSAGE_ROLES = ("user", "assistant", "system")
MESSAGE_STATUSES = ("complete", "streaming", "failed")
PROVIDERS = ("openai", "anthropic", "offline")
SOURCES = ("model", "engine")


def _choices(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(v, v) for v in values]


class Persona(models.Model):
    """Who the player is in a story (seed 000 "Macros de persona del jugador")."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="personas")
    name = models.CharField(max_length=200)
    appearance = models.TextField(blank=True, default="")
    personality = models.TextField(blank=True, default="")
    backstory = models.TextField(blank=True, default="")
    is_active = models.BooleanField(default=False)
    # The square PNG that studio.portraits wrote (its thumbnails sit beside it); "" = none.
    avatar = models.FileField(upload_to="portraits/", max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(is_active=True),
                name="persona_one_active_per_user",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def to_engine(self) -> dict[str, str]:
        return {
            "name": self.name,
            "appearance": self.appearance,
            "personality": self.personality,
            "backstory": self.backstory,
        }


class Session(models.Model):
    """One play-through of a published world version (or of a studio draft, for playtests)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    world = models.ForeignKey(
        "studio.World", models.SET_NULL, null=True, blank=True, related_name="play_sessions"
    )
    world_version = models.ForeignKey(
        "studio.WorldVersion", models.PROTECT, null=True, blank=True, related_name="sessions"
    )
    # A studio playtest plays a snapshot of the draft, taken when the session starts.
    draft_definition = models.JSONField(null=True, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        models.CASCADE,
        null=True,
        blank=True,
        related_name="play_sessions",
    )
    # Guest previews: the browser's Django session key; the session is only reachable from it.
    guest_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    title = models.CharField(max_length=200, blank=True, default="")
    persona = models.ForeignKey(Persona, models.SET_NULL, null=True, blank=True)
    # The persona as it was when the session started: editing a persona later keeps old stories.
    persona_data = models.JSONField(default=dict, blank=True)
    mode = models.CharField(max_length=7, choices=_choices(MODES), default="live")
    model = models.CharField(max_length=200, blank=True, default="", help_text="Model override.")
    state = models.JSONField(default=dict, blank=True)
    dice_seed = models.BigIntegerField(default=0)
    recording = models.JSONField(default=dict, blank=True)
    greeting_index = models.PositiveIntegerField(default=0)
    # A game-master world: the player character this session plays (play.gm); "" = the first.
    character_id = models.CharField(max_length=100, blank=True, default="")
    apply_on_stop = models.BooleanField(
        default=False, help_text="Apply the directives of a stopped reply."
    )
    branched_from = models.ForeignKey(
        "Message", models.SET_NULL, null=True, blank=True, related_name="branches"
    )
    # The player's pick between the site's model and their own provider (play.ui_models):
    # "" = their own provider when they have one, "official" = the site's key and model.
    provider_preference = models.CharField(max_length=8, blank=True, default="")
    # The turn writing a reply now (play.recovery): who claimed the session, when it last beat,
    # and a fencing version bumped by every claim and takeover. A turn commits only if the
    # version is still the one it claimed, so a turn that lost the session cannot overwrite.
    turn_owner = models.CharField(max_length=255, blank=True, default="", editable=False)
    turn_heartbeat = models.DateTimeField(null=True, blank=True, editable=False)
    turn_version = models.PositiveBigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(world_version__isnull=False)
                | models.Q(draft_definition__isnull=False),
                name="session_has_world",
            ),
            models.CheckConstraint(
                condition=models.Q(owner__isnull=False) | ~models.Q(guest_key=""),
                name="session_has_player",
            ),
        ]

    def __str__(self) -> str:
        return self.title or str(self.id)

    @property
    def is_guest(self) -> bool:
        return self.owner_id is None

    @property
    def is_playtest(self) -> bool:
        return self.world_version_id is None


class Message(models.Model):
    """One chat message; an assistant message keeps its swipes, each with its own snapshot."""

    session = models.ForeignKey(Session, models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=9, choices=_choices(MESSAGE_ROLES))
    content = models.TextField(blank=True, default="")
    raw = models.TextField(blank=True, default="")
    status = models.CharField(max_length=9, choices=_choices(MESSAGE_STATUSES), default="complete")
    error = models.TextField(blank=True, default="")
    # Engine SessionState after this message, and the changes it made.
    state = models.JSONField(default=dict, blank=True)
    changes = models.JSONField(default=list, blank=True)
    # [{content, raw, state, changes, status, error, model, usage}], active one mirrored above.
    swipes = models.JSONField(default=list, blank=True)
    active_swipe = models.PositiveIntegerField(default=0)
    choices = models.JSONField(default=list, blank=True)
    # A game-master turn's tool calls and results, kept only where the world's creator plays
    # (play.gm.engine_trace): a result can hold what the player must not see.
    tools = models.JSONField(default=list, blank=True)
    # A talk turn drawn as speech bubbles and an aside (engine.gm.speech); {} for prose.
    speech = models.JSONField(default=dict, blank=True)
    is_greeting = models.BooleanField(default=False)
    stopped = models.BooleanField(default=False)
    # Folded into the session's compaction summary; no longer sent to the model verbatim.
    compacted = models.BooleanField(default=False)
    model = models.CharField(max_length=200, blank=True, default="")
    # Who produced the reply: a model request, or the game-master engine alone (cost 0).
    source = models.CharField(max_length=6, choices=_choices(SOURCES), default="model")
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    cache_write_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    generation_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="message_unique_position")
        ]
        indexes = [models.Index(fields=["session", "status"], name="message_session_status")]

    def __str__(self) -> str:
        return f"{self.role} #{self.position}"


class Checkpoint(models.Model):
    """A named save: the state and a copy of the messages at that point."""

    session = models.ForeignKey(Session, models.CASCADE, related_name="checkpoints")
    name = models.CharField(max_length=200)
    message_count = models.PositiveIntegerField()
    state = models.JSONField(default=dict)
    messages = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.name


class ProviderSetting(models.Model):
    """A user's own model provider. The API key is Fernet-encrypted; only a hint is ever shown."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="provider_setting"
    )
    provider = models.CharField(max_length=9, choices=_choices(PROVIDERS), default="offline")
    base_url = models.URLField(max_length=500, blank=True, default="")
    model = models.CharField(max_length=200, blank=True, default="")
    api_key_encrypted = models.TextField(blank=True, default="", editable=False)
    api_key_hint = models.CharField(max_length=20, blank=True, default="", editable=False)
    # What "Test connection" found each server and model to accept of tool calling (issue 37
    # §3), keyed by play.providers.capability_key; engine.llm.capabilities reads one entry.
    capabilities = models.JSONField(default=dict, blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.provider} ({self.model or 'default model'})"

    def __repr__(self) -> str:
        # Never the ciphertext: reprs end up in logs and tracebacks.
        hint = self.api_key_hint or "-"
        return f"<ProviderSetting user={self.user_id} provider={self.provider} key={hint}>"


class DailyActionCount(models.Model):
    """Actions that called a paid model, per player and UTC day (seed 001 G10 quota)."""

    subject = models.CharField(max_length=100, help_text="user:<id> or guest:<key>")
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["subject", "day"], name="dailyactioncount_unique")
        ]

    def __str__(self) -> str:
        return f"{self.subject} {self.day}: {self.count}"


def message_usage(message: Message) -> dict[str, Any]:
    return {
        "input_tokens": message.input_tokens,
        "output_tokens": message.output_tokens,
        "cache_read_tokens": message.cache_read_tokens,
        "cache_write_tokens": message.cache_write_tokens,
        "cost": float(message.cost),
        "source": message.source,
    }


class WorldDemo(models.Model):
    """A world's published demo: a signed recording (play.recordings) anybody who can play the
    world replays at zero cost. One per world; publishing again replaces it."""

    world = models.OneToOneField("studio.World", models.CASCADE, related_name="demo")
    title = models.CharField(max_length=200, blank=True, default="")
    data = models.JSONField()
    published_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.title or f"demo of world {self.world_id}"

    @property
    def step_count(self) -> int:
        steps = self.data.get("steps") if isinstance(self.data, dict) else None
        return len(steps) if isinstance(steps, list) else 0


class Table(models.Model):
    """Several players in one game-master world (seed 001 "Multijugador"; issue 12 §4).

    The host's session opens it; each player, the host included, sits in a session of his own
    (its own history: only what his character perceived) with one character. The shared world
    state is written to every seated session in the turn's transaction (play.tables).
    """

    host = models.OneToOneField(Session, models.CASCADE, related_name="hosted_table")
    invite_token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"table of {self.host}"


class Seat(models.Model):
    """One player at a table: his session, his character and whether a socket of his is open."""

    table = models.ForeignKey(Table, models.CASCADE, related_name="seats")
    session = models.OneToOneField(Session, models.CASCADE, related_name="seat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="seats")
    character_id = models.CharField(max_length=100)
    sockets = models.PositiveIntegerField(default=0)  # open play sockets: his presence
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="seat_one_per_player"),
            models.UniqueConstraint(
                fields=["table", "character_id"],
                condition=models.Q(left_at__isnull=True),
                name="seat_one_player_per_character",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.character_id}"

    @property
    def active(self) -> bool:
        return self.left_at is None


class UiStorage(models.Model):
    """A world UI's ``storage`` (seed 004 "存储（世界级别，持久化）"), kept on the server.

    One row per world, player and scope: ``scope`` is "world" (every session of this player in
    this world sees it) or a session's id. ``data`` is a JSON object; ``size`` its encoded bytes,
    summed per world and player against FABULA_UI_STORAGE_QUOTA (play.ui_storage).
    """

    world = models.ForeignKey("studio.World", models.CASCADE, related_name="ui_storage")
    player = models.CharField(max_length=120)  # play.sessions.Player.subject
    scope = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    size = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["world", "player", "scope"], name="ui_storage_one_per_scope"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} in world {self.world_id} ({self.scope})"


class UiCompletion(models.Model):
    """One ``ai.complete`` a world's UI asked for: its tokens and cost (play.ui_ai)."""

    session = models.ForeignKey(Session, models.CASCADE, related_name="ui_completions")
    model = models.CharField(max_length=200, blank=True, default="")
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"ai.complete in {self.session_id} ({self.model})"


class ModelPins(models.Model):
    """The models a player pinned in a world UI's model picker (seed 004 ``pinModel``)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, models.CASCADE, related_name="model_pins")
    pinned = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"model pins of user {self.user_id}"
