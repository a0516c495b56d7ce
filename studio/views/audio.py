"""Audio: tracks with file upload, conditional BGM and the BGM playlist (seed 004 "音频")."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from studio.access import get_world_for_user
from studio.editing import add_uploaded_track
from studio.forms import AssetUploadForm, AudioTrackForm, ConditionalBGMForm, PlaylistForm
from studio.labels import label_of
from studio.models import AudioTrack, BGMPlaylist, ConditionalBGM, World
from studio.views.common import AuthedRequest, apply, changed, posted, render_page
from studio.views.items import saved, workspace
from studio.views.kinds import Kind
from studio.worlds import playlist_to_dict, set_bgm_playlist

AUDIO = Kind(
    slug="audio",
    model=AudioTrack,
    form_class=AudioTrackForm,
    title=gettext_lazy("Audio tracks"),
    singular=gettext_lazy("track"),
    describe=lambda track: f"{label_of(track.type)} · {track.url[:32]}",
    extra_template="studio/partials/audio_upload.html",
    extra_context=lambda world: {"upload_form": AssetUploadForm()},
)

CONDITIONAL_BGM = Kind(
    slug="bgm",
    model=ConditionalBGM,
    form_class=ConditionalBGMForm,
    title=gettext_lazy("Conditional BGM"),
    singular=gettext_lazy("conditional BGM"),
    needs_world=True,
    describe=lambda bgm: f"{label_of(bgm.trigger_type)} → {bgm.target_track_id}",
)


@login_required
@require_POST
def audio_upload(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = AssetUploadForm(request.POST, request.FILES)
    if form.is_valid():
        data = form.cleaned_data
        track = apply(
            form,
            lambda _d: add_uploaded_track(
                world, data["file"], name=data["track_name"], kind=data["type"]
            ),
        )
        if track is not None:
            return saved(request, world, AUDIO, track, _("Uploaded."))
    return workspace(request, world, AUDIO, AUDIO.make_form(world), upload_form=form)


def _playlist_page(request: AuthedRequest, world: World, form: PlaylistForm) -> HttpResponse:
    exists = BGMPlaylist.objects.filter(world=world).exists()
    tracks = list(world.audio_tracks.values_list("key", "name"))
    context = {"world": world, "form": form, "exists": exists, "tracks": tracks}
    return render_page(
        request, "studio/playlist.html", {**context, "section": "playlist"}, partial="playlist"
    )


def _playlist_initial(world: World) -> dict[str, Any] | None:
    playlist = BGMPlaylist.objects.filter(world=world).first()
    return playlist_to_dict(playlist) if playlist else None


@login_required
@require_http_methods(["GET", "POST"])
def playlist_edit(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = PlaylistForm(posted(request), initial_data=_playlist_initial(world))
    saving = request.method == "POST" and form.is_valid()
    if saving and apply(form, lambda data: set_bgm_playlist(world, data)) is not None:
        if not request.htmx:
            messages.success(request, _("Playlist saved."))
            return redirect("studio:playlist", world.pk)
        form = PlaylistForm(initial_data=_playlist_initial(world))
        return changed(_playlist_page(request, world, form))
    return _playlist_page(request, world, form)


@login_required
@require_POST
def playlist_delete(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    set_bgm_playlist(world, None)
    if not request.htmx:
        messages.success(request, _("Playlist removed."))
        return redirect("studio:playlist", world.pk)
    return changed(_playlist_page(request, world, PlaylistForm()))
