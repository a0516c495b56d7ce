"""A new account's smaller share of the site's key (issue 32 §4, play.quota): for its first 24
hours an account plays FABULA_NEW_ACCOUNT_DAILY_QUOTA live actions a day on the site's key, then
the offline narrator; an older account, or one on its own key, keeps the full quota."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async

from play.models import ProviderSetting
from play.quota import SITE_SUBJECT, limits
from tests.play.test_quota import count_of, quota_notices, turn, user_session

pytestmark = pytest.mark.django_db(transaction=True)

NOW = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def shares(settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 200
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 2


async def models_of(user, version, turns: int) -> list[str]:
    session = await user_session(user, version)
    ends = [await turn(session, user=user) for _ in range(turns)]
    return [end["message"]["model"] for end, _frames in ends]


async def test_a_new_account_plays_its_first_day_share_live_then_offline(
    alice, version, live_openai
):
    first = [await turn(await user_session(alice, version), user=alice) for _ in range(3)]

    assert [end["message"]["model"] for end, _ in first] == ["test-model", "test-model", "offline"]
    assert quota_notices(first[2][1]) == [
        "Today's live actions are used up, so the offline narrator answers for now. "
        "They come back at midnight UTC."
    ]
    assert len(live_openai.requests) == 2
    assert await count_of(f"new:user:{alice.pk}") == 2


async def test_the_share_binds_only_the_site_key_and_only_for_the_first_day(
    alice, version, live_openai, settings
):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    assert await models_of(alice, version, 3) == ["test-model", "test-model", "offline"]

    own = await sync_to_async(ProviderSetting.objects.create)(
        user=alice, provider="openai", base_url=live_openai.openai_url, model="alices-model"
    )
    assert await models_of(alice, version, 1) == ["alices-model"]  # the own key: full quota
    await sync_to_async(own.delete)()
    alice.date_joined -= timedelta(hours=25)
    await sync_to_async(alice.save)()
    assert await models_of(alice, version, 2) == ["test-model"] * 2  # a day old: full quota
    assert await count_of(f"user:{alice.pk}") == 5


def test_the_first_day_share_is_a_subject_of_its_own_on_the_site_key_only(settings):
    from play.quota import account_subjects

    settings.FABULA_SITE_DAILY_BUDGET = 500
    young = account_subjects("user:7", NOW - timedelta(hours=23), NOW)
    old = account_subjects("user:7", NOW - timedelta(hours=24), NOW)

    assert young == ("user:7", "new:user:7")
    assert old == ("user:7",)
    assert limits(young, on_site_key=True) == {"user:7": 200, "new:user:7": 2, SITE_SUBJECT: 500}
    assert limits(young, on_site_key=False) == {"user:7": 200}
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 0
    assert account_subjects("user:7", NOW, NOW) == ("user:7",)
