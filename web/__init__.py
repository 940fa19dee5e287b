"""The tablet pages: scoreboard, referee and camera calibration (Flask, served by waitress).

``web.app.create_app(table, config=WebConfig(...), camera=...)`` builds the app
from three blueprints, ``web.pages``, ``web.api`` and ``web.camera_routes``;
``web.server`` serves it. Importing this package loads no Flask, so the config
loader can read ``web.config`` cheaply.
"""
