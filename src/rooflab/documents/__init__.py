"""One typed model per document kind: validation when a document is read (one line naming the field) and the JSON
Schema rooflab publishes (``rooflab schema KIND``, docs/schemas/).

Documents stay plain JSON in flight and on disk, exactly as the commands write them;
``rooflab.results.validate.check_document`` checks one against its kind's model (:func:`model_for`) when it is read,
and names the first field that is not what rooflab writes."""

from __future__ import annotations

from pydantic import BaseModel

from rooflab.documents import kernels, labs, measure, stored
from rooflab.results.schema import schema_id

MODELS: dict[str, type[BaseModel]] = {
    "measure": measure.Measure, "measure.gpu": measure.GpuMeasure,
    "bench": kernels.Bench, "compare": kernels.Compare, "explain": kernels.Explain, "profile": kernels.Profile,
    "track": kernels.Track, "track.history": kernels.TrackHistory, "bisect": kernels.Bisect,
    "info": stored.Info, "history": stored.History, "run": stored.Run, "runs": stored.Runs, "labs": stored.Labs,
    "schema": stored.Schema,
    **labs.MODELS,
}


def model_for(kind: str) -> type[BaseModel] | None:
    """The model of a kind; a lab without a model of its own (one added as a module) gets the envelope every lab's
    document has."""
    if kind not in MODELS and isinstance(kind, str) and kind.startswith("lab."):
        return labs.Lab
    return MODELS.get(kind)


def kinds() -> list[str]:
    return sorted(MODELS)


def json_schema(kind: str) -> dict:
    """The JSON Schema of a document kind, with its identifier and current version."""
    out = model_for(kind).model_json_schema(by_alias=True)
    sid = schema_id(kind)
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"urn:rooflab:{sid}", **out}
    out["properties"]["schema"] = {**out["properties"].get("schema", {}), "const": sid}
    return out
