from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "play"
    verbose_name = "Play"

    def ready(self) -> None:
        # Connects the receivers that close a user's sockets when they sign out.
        from play import personas, signouts  # noqa: F401  (personas: avatar files of deleted ones)
