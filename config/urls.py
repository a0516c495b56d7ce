"""Top-level URLs."""

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

from config.api import api
from studio.urls import account_patterns, draft_sandbox_patterns, public_patterns

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("studio/", include("studio.urls")),
    path("play/", include("play.urls")),
    path("play/ui/draft/", include(draft_sandbox_patterns)),  # the studio's custom-UI preview
    path("accounts/", include(account_patterns)),
    path("", include(public_patterns)),
]
urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
