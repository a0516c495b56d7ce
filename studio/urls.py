"""Studio URLs (namespace ``studio``), plus the account and public pages mounted by config.urls.

Every editable list of a world gets the same seven routes from ``kind_urls``.
"""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from studio.evaluations.urls import evaluation_urls
from studio.forms.accounts import LoginForm
from studio.views import (
    accounts,
    audio,
    editors,
    entries,
    exporting,
    gallery,
    importing,
    items,
    lint,
    portraits,
    preview,
    publishing,
    settings,
    tester,
    ui,
    ui_files,
    worlds,
)
from studio.views.components import COMPONENTS
from studio.views.gamemaster import gm_urls
from studio.views.kinds import Kind
from studio.views.reactions import REACTIONS
from studio.views.rules import RULES
from studio.views.variables import VARIABLES
from studio.worldtests.urls import world_test_urls

app_name = "studio"
W = "w/<int:world_id>/"


def kind_urls(kind: Kind) -> list[URLPattern]:
    base, k, name = f"{W}{kind.slug}/", {"kind": kind}, kind.slug
    return [
        path(base, items.item_list, k, name=name),
        path(f"{base}new/", items.item_create, k, name=f"{name}_new"),
        path(f"{base}reorder/", items.item_reorder, k, name=f"{name}_reorder"),
        path(f"{base}<int:pk>/", items.item_edit, k, name=f"{name}_edit"),
        path(f"{base}<int:pk>/delete/", items.item_delete, k, name=f"{name}_delete"),
        path(f"{base}<int:pk>/duplicate/", items.item_duplicate, k, name=f"{name}_duplicate"),
        path(f"{base}<int:pk>/move/", items.item_move, k, name=f"{name}_move"),
    ]


KINDS = (
    entries.ENTRIES,
    entries.FOLDERS,
    VARIABLES,
    RULES,
    REACTIONS,
    audio.AUDIO,
    audio.CONDITIONAL_BGM,
    COMPONENTS,
)

urlpatterns: list[URLPattern] = [
    path("", worlds.world_list, name="world_list"),
    path("new/", worlds.world_create, name="world_new"),
    path("import/", importing.world_import, name="import"),
    path(W, worlds.world_detail, name="world"),
    path(f"{W}delete/", worlds.world_delete, name="world_delete"),
    path(f"{W}portraits/", portraits.portrait_page, name="portraits"),
    path(f"{W}portraits/upload/", portraits.portrait_upload, name="portrait_upload"),
    path(f"{W}portraits/remove/", portraits.portrait_remove, name="portrait_remove"),
    path(f"{W}settings/", settings.world_settings, name="settings"),
    path(f"{W}presets/<slug:key>/", settings.preset_add, name="preset_add"),
    path(f"{W}tags/", entries.tag_list, name="tags"),
    path(f"{W}tags/save/", entries.tag_save, name="tag_save"),
    path(f"{W}tags/delete/", entries.tag_delete, name="tag_delete"),
    path(f"{W}tags/move/", entries.tag_move, name="tag_move"),
    path(f"{W}audio/upload/", audio.audio_upload, name="audio_upload"),
    path(f"{W}playlist/", audio.playlist_edit, name="playlist"),
    path(f"{W}playlist/delete/", audio.playlist_delete, name="playlist_delete"),
    path(f"{W}ui/", ui.ui_overview, name="ui"),
    path(f"{W}ui/meta/", ui.ui_meta, name="ui_meta"),
    path(f"{W}ui/remove/", ui.ui_remove, name="ui_remove"),
    path(f"{W}ui/files/new/", ui.ui_file_new, name="ui_file_new"),
    path(f"{W}ui/files/reorder/", ui.ui_file_reorder, name="ui_file_reorder"),
    path(f"{W}ui/files/<int:pk>/", ui.ui_file, name="ui_file"),
    path(f"{W}ui/files/<int:pk>/delete/", ui.ui_file_delete, name="ui_file_delete"),
    path(f"{W}ui/files/<int:pk>/move/", ui.ui_file_move, name="ui_file_move"),
    path(f"{W}ui/files/<int:pk>/duplicate/", ui.ui_file_duplicate, name="ui_file_duplicate"),
    path(f"{W}ui/files/<int:pk>/rename/", ui_files.ui_file_rename, name="ui_file_rename"),
    path(f"{W}ui/files/<int:pk>/entry/", ui_files.ui_file_entry, name="ui_file_entry"),
    path(f"{W}preview/", preview.prompt_preview, name="preview"),
    path(f"{W}checks/", lint.lint_panel, name="lint"),
    path(f"{W}tester/", tester.directive_tester, name="tester"),
    path(f"{W}publish/", publishing.publish, name="publish"),
    path(f"{W}unpublish/", publishing.unpublish, name="unpublish"),
    path(f"{W}export/", publishing.export_draft, name="export"),
    path(f"{W}export/card/", exporting.export_card, name="export_card"),
    path(f"{W}export/worldinfo/", exporting.export_worldinfo, name="export_worldinfo"),
]
for _kind in KINDS:
    urlpatterns += kind_urls(_kind)
for _kind in (entries.ENTRIES, VARIABLES, RULES, REACTIONS):  # the structured editors
    urlpatterns.append(
        path(
            f"{W}{_kind.slug}/editor/",
            editors.editor_switch,
            {"kind": _kind},
            name=f"{_kind.slug}_editor",
        )
    )
urlpatterns += gm_urls(W)  # the gameMaster block (studio.views.gamemaster)
urlpatterns += evaluation_urls(W)  # batch evaluations (studio.evaluations)
urlpatterns += world_test_urls(W)  # world tests (studio.worldtests)

# Mounted at /play/ui/draft/ by config.urls: the custom UI's live preview has to share the play
# sandbox's path prefix, the only one pages that frame a custom UI allow frames from (play/csp.py).
draft_sandbox_patterns: list[URLPattern] = [
    path("<int:world_id>/", ui_files.ui_preview, name="studio_ui_preview"),
]

# Mounted at /accounts/ by config.urls (no namespace: LOGIN_URL is "login").
account_patterns: list[URLPattern] = [
    path("login/", auth_views.LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", accounts.signup, name="signup"),
    path("", accounts.account, name="account"),
    path("tokens/", accounts.token_create, name="token_create"),
    path("tokens/<int:token_id>/revoke/", accounts.token_revoke, name="token_revoke"),
]

# Mounted at / by config.urls: the gallery, world pages, forks and version exports.
public_patterns: list[URLPattern] = [
    path("", gallery.gallery, name="gallery"),
    path("worlds/<int:world_id>/", gallery.world_page, name="world_page"),
    path("versions/<int:version_id>/fork/", publishing.fork, name="fork"),
    path("versions/<int:version_id>/export/", publishing.export_version, name="export_version"),
]
