"""WSGI entry point for gunicorn (`services.gateway.wsgi:app`): configuration comes from the environment.

The embedded mode's clock thread starts here, in the process that serves the gateway, not in `create_app`:
every app a test or tool builds would otherwise leave a thread polling a store that is gone.
"""

from services.gateway import clock_api, create_app

app = create_app()
if app.extensions["railpost"].config.embedded:
    clock_api.start_in_process(app)
