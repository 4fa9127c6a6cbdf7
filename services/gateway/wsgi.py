"""WSGI entry point for gunicorn (`services.gateway.wsgi:app`): configuration comes from the environment.

The embedded mode's table's tick thread starts here, in the process that serves the gateway, not in `create_app`:
every app a test or tool builds would otherwise leave a thread polling a store that is gone.
"""

from services.gateway import create_app, table_api

app = create_app()
if app.extensions["railpost"].config.embedded:
    table_api.start_in_process(app)
