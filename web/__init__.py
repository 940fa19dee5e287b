"""The tablet pages: scoreboard, referee and camera calibration (Flask, served by waitress).

``web.app.create_app(table, config=WebConfig(...), camera=...)`` builds the app;
``web.cli`` is ``companion web``. Importing this package loads no Flask, so the
config loader can read ``web.config`` cheaply.
"""
