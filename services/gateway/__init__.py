"""The HTTP gateway: a Flask app factory wiring store, dispatcher and blueprints from one `Config`."""

from __future__ import annotations

import logging
import time

from flask import Flask, g, request
from werkzeug.wrappers import Response

from services.config import Config
from services.gateway import (
    actions,
    errors,
    games,
    home,
    meta,
    players,
    seat_api,
    signin_api,
    table_api,
    titles,
)
from services.gateway import web as page
from services.gateway.http import JsonProvider, guard_path_ids
from services.gateway.runtime import Runtime
from services.logs import setup_logging
from services.notifier import api as notifier_api
from services.play.dispatch import InProcessDispatcher, make_dispatcher
from services.play.offers import make_shelf
from services.play.sessions import SessionCache
from services.play.signals import make_signals
from shared.eventstore import open_recorder

log = logging.getLogger("railpost.gateway")


def create_app(config: Config | None = None) -> Flask:
    config = config or Config.from_env()
    setup_logging(config.log_level)
    app = Flask(__name__)
    app.json = JsonProvider(app)
    app.config.update(MAX_CONTENT_LENGTH=config.max_body_bytes)
    recorder = open_recorder(config.database_url, pool_size=config.db_pool_size, timeout=config.db_timeout)
    signals = make_signals(config.redis_url, config.celery_queue)
    shelf = make_shelf(config.redis_url)
    app.extensions["railpost"] = Runtime(config, recorder, make_dispatcher(recorder, config, signals, shelf),
                                         SessionCache(recorder, config.session_cache_size), signals, offers=shelf)
    for module in (games, actions, players, meta, titles):
        app.register_blueprint(module.bp)
    app.register_blueprint(page.bp)  # the game page, the map and the page's long-poll
    notifier_api.init_app(app, notifier_api.context_for(config))  # /notifier: settings, deliveries
    app.register_blueprint(table_api.bp)  # time controls, votes, undo requests (docs/time-controls.md)
    app.register_blueprint(seat_api.bp)  # seat hand-over by invitation, stand-ins
    app.register_blueprint(signin_api.bp)  # revoking the sign-in links of turn emails
    app.register_blueprint(home.bp)  # a player's games across the site, his turns first
    errors.register(app)
    app.before_request(guard_path_ids)
    dispatcher = app.extensions["railpost"].dispatcher
    if isinstance(dispatcher, InProcessDispatcher):  # the embedded worker: the clock follows each move at once
        def follow(game_id: int) -> None:
            with app.app_context():
                table_api.follower().follow_move(game_id)
        dispatcher.after_settle = follow

    @app.before_request
    def _clock() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def _access_log(response: Response) -> Response:
        if log.isEnabledFor(logging.INFO):  # the line's fields cost more than the check
            elapsed = (time.perf_counter() - g.get("started", time.perf_counter())) * 1000
            log.info("request", extra={"method": request.method, "path": request.path,
                                       "status": response.status_code, "ms": round(elapsed, 2)})
        return response

    return app
