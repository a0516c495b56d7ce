"""URLs of the play pages, mounted at /play/ (the websocket lives in config/routing.py)."""

from django.urls import URLPattern, path

from play.views import (
    avatars,
    demos,
    memory,
    pages,
    personas,
    playtest,
    providers,
    sandbox,
    status,
    tables,
    ui,
)

app_name = "play"

urlpatterns: list[URLPattern] = [
    path("", pages.session_list, name="session_list"),
    path("start/<int:version_id>/", pages.start, name="start"),
    path("preview/<int:version_id>/", pages.preview, name="preview"),
    path("<uuid:session_id>/", pages.session_page, name="session"),
    path("<uuid:session_id>/delete/", pages.delete, name="delete"),
    path("<uuid:session_id>/persona/", pages.change_persona, name="session_persona"),
    path("<uuid:session_id>/invite/", tables.invite, name="invite"),
    path("<uuid:session_id>/leave/", tables.leave, name="leave"),
    path("<uuid:session_id>/invite/new/", tables.rotate_invite, name="rotate_invite"),
    path("<uuid:session_id>/table/remove/", tables.remove_player, name="remove_player"),
    path("join/<str:token>/", tables.join, name="join"),
    path("<uuid:session_id>/demo.json", demos.download, name="demo_download"),
    path("<uuid:session_id>/demo/publish/", demos.publish_session, name="demo_publish"),
    path("demos/<int:world_id>/watch/", demos.watch, name="demo_watch"),
    path("demos/<int:world_id>/upload/", demos.upload, name="demo_upload"),
    path("demos/<int:world_id>/remove/", demos.remove, name="demo_remove"),
    path("<uuid:session_id>/messages/<int:message_id>/", pages.message_detail, name="message"),
    path("<uuid:session_id>/memory/", memory.memory_panel, name="memory"),
    path("<uuid:session_id>/status/", status.status_panel, name="status"),
    path("<uuid:session_id>/memory/end/", memory.memory_end, name="memory_end"),
    # One prefix for every sandbox: the pages that frame it allow only that path (play/csp.py).
    path("ui/<uuid:session_id>/", sandbox.custom_ui, name="sandbox"),
    # The sandbox runtime's ES modules, with the CORS header its opaque origin needs.
    path("sandbox-js/<str:name>", sandbox.runtime_module, name="sandbox_module"),
    path("<uuid:session_id>/ui/info/", ui.ui_info, name="ui_info"),
    path("<uuid:session_id>/ui/complete/", ui.ui_complete, name="ui_complete"),
    path("<uuid:session_id>/ui/storage/", ui.ui_storage_write, name="ui_storage"),
    path("<uuid:session_id>/ui/sessions/", ui.ui_sessions, name="ui_sessions"),
    path("<uuid:session_id>/ui/models/", ui.ui_models, name="ui_models"),
    path("personas/", personas.persona_list, name="personas"),
    path("personas/new/", personas.persona_create, name="persona_create"),
    path("personas/<int:persona_id>/", personas.persona_edit, name="persona_edit"),
    path("personas/<int:persona_id>/delete/", personas.persona_delete, name="persona_delete"),
    path("personas/<int:persona_id>/avatar/", avatars.avatar_upload, name="persona_avatar"),
    path(
        "personas/<int:persona_id>/avatar/remove/",
        avatars.avatar_remove,
        name="persona_avatar_remove",
    ),
    path("personas/<int:persona_id>/activate/", personas.persona_activate, name="persona_activate"),
    path("provider/", providers.provider_settings, name="provider"),
    path("provider/reset/", providers.provider_reset, name="provider_reset"),
    path("provider/test/", providers.provider_test, name="provider_test"),
    path("provider/models/", providers.provider_models, name="provider_models"),
    path("provider/pick/", providers.provider_pick, name="provider_pick"),
    path("playtest/<int:world_id>/", playtest.playtest_panel, name="playtest"),
    path("playtest/<int:world_id>/reset/", playtest.playtest_reset, name="playtest_reset"),
    path("<uuid:session_id>/state/", playtest.playtest_state, name="playtest_state"),
]
