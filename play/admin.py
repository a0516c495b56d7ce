"""Admin for play rows. Provider keys never show here: only the masked hint."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from play.models import Checkpoint, DailyActionCount, Message, Persona, ProviderSetting, Session

if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin
    TabularInline = admin.TabularInline
else:  # the admin classes are not subscriptable at runtime
    ModelAdmin = type("ModelAdmin", (), {"__class_getitem__": lambda cls, _: admin.ModelAdmin})
    TabularInline = type(
        "TabularInline", (), {"__class_getitem__": lambda cls, _: admin.TabularInline}
    )


class MessageInline(TabularInline[Message, Session]):
    model = Message
    extra = 0
    fields = ("position", "role", "status", "content", "model", "output_tokens", "cost")
    readonly_fields = fields
    show_change_link = True


@admin.register(Session)
class SessionAdmin(ModelAdmin[Session]):
    list_display = ("id", "title", "owner", "mode", "world_version", "updated_at")
    list_filter = ("mode",)
    search_fields = ("title", "owner__username")
    raw_id_fields = ("owner", "world", "world_version", "persona", "branched_from")
    readonly_fields = ("guest_key", "dice_seed", "created_at", "updated_at")
    inlines = [MessageInline]


@admin.register(Message)
class MessageAdmin(ModelAdmin[Message]):
    list_display = ("id", "session", "position", "role", "status", "model", "cost", "created_at")
    list_filter = ("status", "role")
    raw_id_fields = ("session",)


@admin.register(Checkpoint)
class CheckpointAdmin(ModelAdmin[Checkpoint]):
    list_display = ("name", "session", "message_count", "created_at")
    raw_id_fields = ("session",)


@admin.register(Persona)
class PersonaAdmin(ModelAdmin[Persona]):
    list_display = ("name", "user", "is_active")
    raw_id_fields = ("user",)


@admin.register(ProviderSetting)
class ProviderSettingAdmin(ModelAdmin[ProviderSetting]):
    list_display = ("user", "provider", "model", "base_url", "api_key_hint", "updated_at")
    fields = ("user", "provider", "base_url", "model", "api_key_hint")
    readonly_fields = ("api_key_hint",)
    raw_id_fields = ("user",)


@admin.register(DailyActionCount)
class DailyActionCountAdmin(ModelAdmin[DailyActionCount]):
    list_display = ("subject", "day", "count")
    list_filter = ("day",)
