"""The rules worker: Celery tasks that apply queued commands through the engine (see `services.play.apply`)."""
