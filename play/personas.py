"""Personas: who the player is in a story (seed 000 "Macros de persona del jugador").

A user has any number of personas and at most one active; new sessions start with the active
one, and keep a copy of it, so editing a persona never rewrites a story already played.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils.translation import gettext

from play.errors import NotFound, PlayError
from play.models import Persona, Session
from studio.services import CropBox, discard_later, make_portrait, portrait_url, swap_portrait

FIELDS = ("name", "appearance", "personality", "backstory")


def personas_of(user: Any) -> QuerySet[Persona]:
    return Persona.objects.filter(user=user)


def get_persona_for_user(user: Any, persona_id: int) -> Persona:
    persona = Persona.objects.filter(user=user, pk=persona_id).first()
    if persona is None:
        raise NotFound("This persona does not exist.", field="persona_id")
    return persona


def persona_dict(persona: Persona) -> dict[str, Any]:
    avatar = portrait_url(persona.avatar.name or "", 256) or None
    return {
        "id": persona.pk,
        "is_active": persona.is_active,
        **persona.to_engine(),
        "avatar": avatar,
    }


def create_persona(user: Any, data: dict[str, Any], *, activate: bool = False) -> Persona:
    """A new persona; the user's first one (or with ``activate``) becomes the active one."""
    name = str(data.get("name") or "").strip()
    if not name:
        raise PlayError(gettext("A persona needs a name."), field="name")
    with transaction.atomic():
        first = not Persona.objects.filter(user=user).exists()
        persona = Persona.objects.create(
            user=user, **{f: str(data.get(f) or "") for f in FIELDS if f != "name"}, name=name
        )
        if activate or first:
            activate_persona(persona)
    return persona


def update_persona(persona: Persona, data: dict[str, Any]) -> Persona:
    for field in FIELDS:
        if field in data and data[field] is not None:
            setattr(persona, field, str(data[field]))
    if not persona.name.strip():
        raise PlayError(gettext("A persona needs a name."), field="name")
    persona.save()
    return persona


def activate_persona(persona: Persona) -> Persona:
    """Make ``persona`` its user's only active persona."""
    with transaction.atomic():
        Persona.objects.filter(user_id=persona.user_id, is_active=True).exclude(
            pk=persona.pk
        ).update(is_active=False)
        persona.is_active = True
        persona.save(update_fields=["is_active"])
    return persona


def delete_persona(persona: Persona) -> None:
    persona.delete()


def set_persona_avatar(
    persona: Persona, upload: UploadedFile[bytes], crop: CropBox | None = None
) -> Persona:
    """Make ``upload`` the persona's avatar (studio.portraits checks and re-encodes it).

    Raises PortraitError (on ``image``) for a file that is not an image or is too large.
    """
    swap_portrait(persona, "avatar", make_portrait(upload, crop))
    return persona


def clear_persona_avatar(persona: Persona) -> Persona:
    swap_portrait(persona, "avatar", "")
    return persona


@receiver(post_delete, sender=Persona)
def _forget_avatar(sender: Any, instance: Persona, **kwargs: Any) -> None:
    """A deleted persona (or user) leaves no avatar files behind."""
    discard_later(instance.avatar.name or "")


def set_session_persona(session: Session, persona: Persona | None) -> Session:
    """Play the rest of ``session`` as ``persona`` (None: no persona); past messages stay."""
    if persona is not None and persona.user_id != session.owner_id:
        raise PlayError(gettext("This persona is not yours."), field="persona_id")
    session.persona = persona
    session.persona_data = persona.to_engine() if persona else {}
    session.save(update_fields=["persona", "persona_data", "updated_at"])
    return session
