"""Portraits of worlds and game-master characters: re-encoding, cropping, thumbnails, refusals,
the Portraits page (owner only), where they show, and the card export that carries them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from PIL import Image

from engine.interop import import_file
from studio.exporting import card_download, world_portrait
from studio.models import CharacterPortrait
from studio.portraits import (
    CropBox,
    PortraitError,
    initials,
    render_portrait,
    set_world_portrait,
)
from studio.worlds import delete_world
from tests.factories import make_world
from tests.studio.gm_helpers import small_block
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish
from tests.support.images import (
    BLUE,
    RED,
    bomb_png,
    decoded,
    halves,
    image_bytes,
    image_upload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def stored(media: Path) -> list[str]:
    """Every file under MEDIA_ROOT, relative and sorted (the folder's random name as *)."""
    return sorted(
        "/".join(("*" if i == 1 else part) for i, part in enumerate(p.relative_to(media).parts))
        for p in media.rglob("*")
        if p.is_file()
    )


def near(pixel: Any, colour: tuple[int, int, int]) -> bool:
    """JPEG is lossy: the colour within a few steps."""
    return all(abs(a - b) <= 8 for a, b in zip(pixel[:3], colour, strict=True))


PORTRAIT_FILES = ["portraits/*/256.webp", "portraits/*/64.webp", "portraits/*/portrait.png"]


# --- images ---------------------------------------------------------------------------------


def test_it_crops_the_centre_square_and_writes_a_png_and_two_webp_thumbnails():
    files = render_portrait(image_bytes(halves(300, 200)))
    portrait = decoded(files["portrait.png"])
    assert (portrait.format, portrait.size) == ("PNG", (200, 200))
    assert portrait.getpixel((0, 100))[:3] == BLUE  # x=50 of the original: the blue third
    assert portrait.getpixel((199, 100))[:3] == RED
    sizes = {name: (decoded(body).format, decoded(body).size) for name, body in files.items()}
    assert sizes == {
        "portrait.png": ("PNG", (200, 200)),
        "256.webp": ("WEBP", (256, 256)),
        "64.webp": ("WEBP", (64, 64)),
    }


def test_a_large_image_is_scaled_down_to_512_pixels():
    files = render_portrait(image_bytes(halves(1500, 1000), "JPEG"))
    assert decoded(files["portrait.png"]).size == (512, 512)


def test_a_crop_box_picks_the_square_and_is_moved_inside_the_image():
    files = render_portrait(image_bytes(halves(300, 200)), CropBox(x=0, y=0, size=90))
    portrait = decoded(files["portrait.png"])
    assert portrait.size == (90, 90)
    assert {portrait.getpixel((x, 45))[:3] for x in (0, 89)} == {BLUE}
    clamped = decoded(
        render_portrait(image_bytes(halves()), CropBox(280, 190, 500))["portrait.png"]
    )
    assert clamped.size == (200, 200)  # the side shrinks to fit, the corner moves back in
    assert clamped.getpixel((199, 0))[:3] == RED


def test_metadata_never_survives_the_re_encoding():
    exif = Image.Exif()
    exif[0x010E] = "GPS 48.85N 2.35E secret"  # ImageDescription
    data = image_bytes(halves(), "JPEG", exif=exif.tobytes(), comment=b"a secret comment")
    for body in render_portrait(data).values():
        assert b"secret" not in body
        assert not {"exif", "comment", "icc_profile"} & set(decoded(body).info)


def test_the_exif_orientation_is_applied_before_cropping():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to show
    data = image_bytes(halves(300, 200), "JPEG", exif=exif.tobytes())
    portrait = decoded(render_portrait(data)["portrait.png"])
    assert near(portrait.getpixel((100, 0)), BLUE)  # the blue third is now on top
    assert near(portrait.getpixel((100, 199)), RED)


@pytest.mark.parametrize(
    "data",
    [
        b"just some text",
        b"<html><script>alert(1)</script></html>",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        image_bytes(halves(), "BMP"),
        image_bytes(halves(), "TIFF"),
        image_bytes(halves())[:200],  # a truncated PNG
    ],
    ids=["text", "html", "svg", "bmp", "tiff", "truncated"],
)
def test_anything_but_a_png_jpeg_webp_or_gif_is_refused(data: bytes):
    with pytest.raises(PortraitError) as refused:
        render_portrait(data)
    assert str(refused.value) == "image: not an image (PNG, JPEG, WebP or GIF expected)"


def test_a_decompression_bomb_is_refused_before_it_is_decoded(monkeypatch: Any):
    bomb = bomb_png()

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the pixels were decoded")

    monkeypatch.setattr(Image.Image, "load", never)
    monkeypatch.setattr("PIL.ImageFile.ImageFile.load", never)
    with pytest.raises(PortraitError) as refused:
        render_portrait(bomb)
    assert refused.value.message == "the image has too many pixels (at most 25 megapixels)"


def test_a_gif_gives_its_first_frame():
    frames = [Image.new("RGB", (40, 40), BLUE), Image.new("RGB", (40, 40), RED)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    portrait = decoded(render_portrait(out.getvalue())["portrait.png"])
    assert portrait.getpixel((20, 20))[:3] == BLUE


def test_initials_stand_in_for_a_missing_picture():
    assert [initials(n) for n in ("The Salt Road", "ren", "林黛玉", "  ", "mara-the-cook")] == [
        "TS",
        "R",
        "林",
        "?",
        "MT",
    ]


# --- the Portraits page ---------------------------------------------------------------------


def upload(client: Any, world: Any, *, headers: dict[str, str] | None = None, **data: Any) -> Any:
    data.setdefault("image", image_upload())
    url = reverse("studio:portrait_upload", args=[world.pk])
    return client.post(url, data, **(headers or {}))


def test_the_owner_uploads_the_world_portrait(client, alice, world, media):
    response = upload(login(client, alice), world)
    assert response.status_code == 302
    assert response["Location"] == reverse("studio:portraits", args=[world.pk])
    world.refresh_from_db()
    assert world.portrait.name.startswith("portraits/")
    assert world.portrait.name.endswith("/portrait.png")
    assert stored(media) == PORTRAIT_FILES
    page = client.get(response["Location"]).content.decode()
    assert "Portrait saved." in page
    assert f'src="/media/{world.portrait.name.removesuffix("portrait.png")}256.webp"' in page


def test_an_htmx_upload_gets_the_panel_back(client, alice, world):
    response = upload(login(client, alice), world, headers=hx("portraits"))
    assert response.status_code == 200
    assert is_partial(response)
    world.refresh_from_db()
    assert (
        world.portrait.name.removesuffix("portrait.png") + "256.webp" in response.content.decode()
    )


def test_a_non_image_is_refused_on_the_image_field_and_nothing_is_kept(client, alice, world, media):
    fake = image_upload(b"GIF89a but not really", "face.gif", "image/gif")
    response = upload(login(client, alice), world, image=fake)
    assert response.status_code == 400
    assert errors_of(response) == ["not an image (PNG, JPEG, WebP or GIF expected)"]
    assert 'id="field-image"' in response.content.decode()
    world.refresh_from_db()
    assert not world.portrait
    assert stored(media) == []


def test_an_oversize_file_is_refused_naming_the_limit(client, alice, world, settings, media):
    settings.MAX_PORTRAIT_BYTES = 100
    response = upload(login(client, alice), world)
    assert response.status_code == 400
    assert errors_of(response) == ["is larger than the 100 bytes limit"]
    assert stored(media) == []


def test_a_bomb_is_refused_on_the_image_field(client, alice, world, media):
    response = upload(login(client, alice), world, image=image_upload(bomb_png()))
    assert errors_of(response) == ["the image has too many pixels (at most 25 megapixels)"]
    assert stored(media) == []


def test_a_half_given_crop_box_is_refused(client, alice, world):
    response = upload(login(client, alice), world, crop_x="10")
    assert errors_of(response) == ["Give the left, top and side of the crop box together."]


def test_the_crop_box_fields_crop(client, alice, world):
    upload(login(client, alice), world, crop_x="0", crop_y="0", crop_size="60")
    world.refresh_from_db()
    portrait = decoded(world_portrait(world) or b"")
    assert portrait.size == (60, 60)
    assert portrait.getpixel((30, 30))[:3] == BLUE


def test_only_the_owner_uploads_or_removes(client, alice, bob, charlie, world):
    for name, method in [
        ("studio:portraits", "get"),
        ("studio:portrait_upload", "post"),
        ("studio:portrait_remove", "post"),
    ]:
        url = reverse(name, args=[world.pk])
        client.logout()
        assert getattr(client, method)(url).status_code == 302  # log in first
        login(client, charlie)
        data = {"image": image_upload()} if method == "post" else {}
        assert getattr(client, method)(url, data).status_code == 404
    publish(world)
    url = reverse("studio:portrait_upload", args=[world.pk])
    assert login(client, bob).post(url, {"image": image_upload()}).status_code == 403
    world.refresh_from_db()
    assert not world.portrait


def test_upload_and_remove_refuse_get(client, alice, world):
    login(client, alice)
    for name in ("studio:portrait_upload", "studio:portrait_remove"):
        assert client.get(reverse(name, args=[world.pk])).status_code == 405


def test_a_new_portrait_replaces_the_old_files(
    client, alice, world, media, django_capture_on_commit_callbacks
):
    login(client, alice)
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, world)
        upload(client, world, image=image_upload(image_bytes(halves(80, 80))))
    world.refresh_from_db()
    assert stored(media) == PORTRAIT_FILES
    assert decoded(world_portrait(world) or b"").size == (80, 80)


def test_removing_the_portrait_deletes_its_files(
    client, alice, world, media, django_capture_on_commit_callbacks
):
    login(client, alice)
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, world)
        response = client.post(reverse("studio:portrait_remove", args=[world.pk]))
    assert response["Location"] == reverse("studio:portraits", args=[world.pk])
    world.refresh_from_db()
    assert not world.portrait
    assert stored(media) == []


def test_deleting_the_world_deletes_its_portraits(alice, media, django_capture_on_commit_callbacks):
    world = make_world(alice, gameMaster=small_block())
    with django_capture_on_commit_callbacks(execute=True):
        set_world_portrait(world, image_upload())
        upload_character(world, "tom")
        assert len(stored(media)) == 6
        delete_world(world)
    assert stored(media) == []


def upload_character(world: Any, key: str) -> CharacterPortrait:
    from studio.portraits import set_character_portrait

    return set_character_portrait(world, key, image_upload())


def test_a_game_master_character_gets_its_own_portrait(client, alice, media):
    world = make_world(alice, gameMaster=small_block())
    login(client, alice)
    page = client.get(reverse("studio:portraits", args=[world.pk])).content.decode()
    assert "Character: Tom" in page
    response = upload(client, world, character="tom")
    assert response.status_code == 302
    row = CharacterPortrait.objects.get(world=world)
    assert (row.key, row.portrait.name.endswith("/portrait.png")) == ("tom", True)
    assert not world.portrait
    unknown = upload(client, world, character="nobody")
    assert unknown.status_code == 404
    removed = client.post(reverse("studio:portrait_remove", args=[world.pk]), {"character": "tom"})
    assert removed.status_code == 302
    assert not CharacterPortrait.objects.exists()


def test_the_editor_links_the_portraits_page_and_shows_the_face(client, alice, world):
    publish(world)
    login(client, alice)
    page = client.get(reverse("studio:world", args=[world.pk])).content.decode()
    assert f'href="{reverse("studio:portraits", args=[world.pk])}"' in page
    assert 'class="face face--md face--initials' in page  # no portrait yet: "TS"
    assert '<td><time datetime="' in page  # the version's date, in the reader's zone


# --- where portraits show -------------------------------------------------------------------


def test_the_gallery_card_shows_the_portrait_and_initials_without_one(client, alice, bob):
    pictured = make_world(alice, name="Salt Road")
    set_world_portrait(pictured, image_upload())
    publish(pictured)
    plain = make_world(bob, id="another-world", name="Quiet Harbour")
    publish(plain)
    page = client.get(reverse("gallery")).content.decode()
    thumb = f"/media/{pictured.portrait.name.removesuffix('portrait.png')}256.webp"
    assert f'<img class="face face--lg" src="{thumb}" alt=""' in page
    assert '<span class="face face--lg face--initials face--hue-' in page
    assert ">QH</span>" in page


def test_my_worlds_and_the_world_page_show_the_portrait(client, alice, world):
    set_world_portrait(world, image_upload())
    publish(world)
    thumb = f"/media/{world.portrait.name.removesuffix('portrait.png')}256.webp"
    login(client, alice)
    assert thumb in client.get(reverse("studio:world_list")).content.decode()
    assert thumb in client.get(reverse("world_page", args=[world.pk])).content.decode()


# --- the character card export --------------------------------------------------------------


def test_world_portrait_is_none_without_a_portrait(world):
    assert world_portrait(world) is None


def test_the_card_png_carries_the_portrait(world):
    set_world_portrait(world, image_upload(image_bytes(halves(120, 120))))
    download = card_download(world, "v2", "png")
    card = decoded(download.body)
    assert card.size == (120, 120)
    assert card.getpixel((10, 60))[:3] == BLUE
    definition, _warnings = import_file(download.body, download.filename)
    assert definition.name == world.name
