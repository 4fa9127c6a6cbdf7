"""WSGI entry point for gunicorn (`services.gateway.wsgi:app`): configuration comes from the environment."""

from services.gateway import create_app

app = create_app()
