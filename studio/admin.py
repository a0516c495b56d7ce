"""Django admin for every studio model; versions are read-only, as everywhere else."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from studio.models import (
    ApiToken,
    Asset,
    AudioTrack,
    BGMPlaylist,
    Component,
    ConditionalBGM,
    Entry,
    EntryFolder,
    Reaction,
    RootComponentFile,
    Rule,
    Variable,
    World,
    WorldVersion,
)


class ItemInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    show_change_link = True
    fields = ["key", "position"]


class EntryInline(ItemInline):
    model = Entry
    fields = ["key", "name", "section", "enabled", "position"]


class VariableInline(ItemInline):
    model = Variable
    fields = ["key", "name", "type", "position"]


class RuleInline(ItemInline):
    model = Rule
    fields = ["key", "name", "enabled", "priority", "position"]


class VersionInline(admin.TabularInline):  # type: ignore[type-arg]
    model = WorldVersion
    extra = 0
    fields = ("number", "name", "changelog", "content_hash", "created_at")
    readonly_fields = ("number", "name", "changelog", "content_hash", "created_at")
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(World)
class WorldAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "owner", "published", "language", "updated"]
    list_filter = ["published", "editor_mode", "language"]
    search_fields = ["name", "description", "owner__username", "uid"]
    list_select_related = ("owner",)
    raw_id_fields = ("owner", "published_version", "forked_from")
    readonly_fields = ("uid", "created", "updated")
    inlines = (EntryInline, VariableInline, RuleInline, VersionInline)


class WorldItemAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["key", "world", "position"]
    search_fields = ["key", "world__name"]
    list_select_related = ("world",)
    raw_id_fields = ("world",)


@admin.register(Entry)
class EntryAdmin(WorldItemAdmin):
    list_display = ["key", "name", "world", "section", "role", "enabled", "position"]
    list_filter = ["section", "role", "api_role", "enabled"]
    search_fields = ["key", "name", "content", "world__name"]


@admin.register(Variable)
class VariableAdmin(WorldItemAdmin):
    list_display = ["key", "name", "world", "type", "position"]
    list_filter = ["type"]


@admin.register(Rule)
class RuleAdmin(WorldItemAdmin):
    list_display = ["key", "name", "world", "priority", "enabled", "position"]
    list_filter = ["enabled"]


@admin.register(AudioTrack)
class AudioTrackAdmin(WorldItemAdmin):
    list_display = ["key", "name", "world", "type", "url", "position"]
    list_filter = ["type"]


for model in (Reaction, ConditionalBGM, EntryFolder, Component):
    admin.site.register(model, WorldItemAdmin)


@admin.register(BGMPlaylist)
class BGMPlaylistAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["world", "play_mode", "auto_play"]
    raw_id_fields = ("world",)


@admin.register(RootComponentFile)
class RootComponentFileAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["path", "world", "position"]
    search_fields = ["path", "world__name"]
    raw_id_fields = ("world",)


@admin.register(Asset)
class AssetAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["original_name", "world", "content_type", "size", "created"]
    list_filter = ["content_type"]
    search_fields = ["original_name", "uid", "world__name"]
    readonly_fields = ("uid", "content_type", "size", "sha256", "created")
    raw_id_fields = ("world",)


@admin.register(WorldVersion)
class WorldVersionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "number", "world", "created_at"]
    search_fields = ["name", "world__name", "content_hash"]
    list_select_related = ("world",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in WorldVersion._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "user", "prefix", "scope", "created", "expires", "last_used", "revoked"]
    list_filter = ["scope", "revoked"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ("prefix", "digest", "created", "last_used")
    raw_id_fields = ("user",)
