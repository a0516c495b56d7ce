from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"
    verbose_name = "Studio"

    def ready(self) -> None:
        # Importing the throttle connects its signal receivers (count failures, forget them on
        # success); the admin's login names the wait too, like the site's.
        from django.contrib import admin

        from studio import portraits, throttle  # noqa: F401  (portraits: files of deleted faces)
        from studio.forms.accounts import AdminLoginForm

        admin.site.login_form = AdminLoginForm
