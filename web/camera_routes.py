"""The camera page's calls: the newest frame, the cards recognised in it, and the seat zones.

All are the referee's (:func:`web.guard.referee_api`), and answer 404 where no
camera is connected.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from web.camera import ZoneError, ZonesNotSaved, validate_zones
from web.guard import api_error, json_body, referee_api
from web.state import camera

blueprint = Blueprint("camera", __name__)

_NO_CAMERA = "no camera is connected"


@blueprint.get("/camera/frame.jpg")
@referee_api
def frame() -> Response:
    view = camera()
    if view is None:
        return api_error(404, _NO_CAMERA)
    jpeg = view.latest_jpeg()
    if jpeg is None:
        return api_error(503, "no frame from the camera yet")
    response = Response(jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@blueprint.get("/camera/detections.json")
@referee_api
def detections() -> Response:
    view = camera()
    if view is None:
        return api_error(404, _NO_CAMERA)
    size = view.frame_size()
    if size is None:
        return jsonify(width=None, height=None, detections=[])
    width, height = size
    found = [
        {
            "code": d.code,
            "confidence": round(float(d.confidence), 3),
            "outline": [[round(float(x), 1), round(float(y), 1)] for x, y in d.outline.reshape(-1, 2)],
        }
        for d in view.detections()
    ]
    return jsonify(width=width, height=height, detections=found)


@blueprint.get("/api/zones")
@referee_api
def get_zones() -> Response:
    view = camera()
    if view is None:
        return api_error(404, _NO_CAMERA)
    return jsonify(zones=view.zones())


@blueprint.post("/api/zones")
@referee_api
def set_zones() -> Response:
    view = camera()
    if view is None:
        return api_error(404, _NO_CAMERA)
    body = json_body()
    try:
        zones = validate_zones(body.get("zones") if isinstance(body, dict) else None, size=view.frame_size())
        view.set_zones(zones)
    except ZonesNotSaved as e:
        return api_error(503, str(e))
    except ZoneError as e:
        return api_error(400, str(e))
    return jsonify(zones=view.zones())
