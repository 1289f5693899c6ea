"""SVG elements as text: the few the report's charts draw, with fixed number formatting.

Nothing here reads a clock, a random source or a font, so the same chart
always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["circle", "document", "fmt", "group", "line", "polygon", "polyline", "rect", "text"]

INK = "#1f2933"


def fmt(value: float) -> str:
    """A coordinate with one decimal, trailing ``.0`` and negative zero dropped."""
    shown = f"{value:.1f}"
    if shown.endswith(".0"):
        shown = shown[:-2]
    return "0" if shown == "-0" else shown


def _attrs(values: dict[str, object]) -> str:
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        shown = fmt(value) if isinstance(value, float) else str(value)
        parts.append(f'{key.rstrip("_").replace("_", "-")}="{escape(shown)}"')
    return " ".join(parts)


def _element(tag: str, attributes: dict[str, object], tip: str | None = None, body: str = "") -> str:
    inner = (f"<title>{escape(tip)}</title>" if tip else "") + body
    opened = f"<{tag} {_attrs(attributes)}"
    return f"{opened}>{inner}</{tag}>" if inner else f"{opened}/>"


def document(width: int, height: int, body: Sequence[str], *, label: str) -> str:
    """A standalone ``<svg>`` of the given size that scales down with its container."""
    head = _attrs(
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {width} {height}",
            "width": width,
            "height": height,
            "role": "img",
            "aria-label": label,
            "font-family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
        }
    )
    return f"<svg {head}><title>{escape(label)}</title>" + "".join(body) + "</svg>"


def group(body: Sequence[str], *, tip: str | None = None) -> str:
    return _element("g", {}, tip, "".join(body)) if body or tip else ""


def rect(
    x: float,
    y: float,
    width: float,
    height: float,
    *,
    fill: str,
    stroke: str | None = None,
    stroke_width: float | None = None,
    opacity: float | None = None,
    tip: str | None = None,
) -> str:
    return _element(
        "rect",
        {
            "x": float(x),
            "y": float(y),
            "width": float(max(width, 0.0)),
            "height": float(height),
            "fill": fill,
            "stroke": stroke,
            "stroke-width": stroke_width,
            "fill-opacity": opacity,
        },
        tip,
    )


def line(
    x1: float,
    y1: float,
    x2: float,
    y2: float,
    *,
    stroke: str = INK,
    width: float = 1.0,
    dash: str | None = None,
    opacity: float | None = None,
) -> str:
    return _element(
        "line",
        {
            "x1": float(x1),
            "y1": float(y1),
            "x2": float(x2),
            "y2": float(y2),
            "stroke": stroke,
            "stroke-width": float(width),
            "stroke-dasharray": dash,
            "stroke-opacity": opacity,
        },
    )


def _points(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in points)


def polyline(
    points: Sequence[tuple[float, float]], *, stroke: str, width: float = 2.0, dash: str | None = None
) -> str:
    return _element(
        "polyline",
        {
            "points": _points(points),
            "fill": "none",
            "stroke": stroke,
            "stroke-width": float(width),
            "stroke-dasharray": dash,
            "stroke-linejoin": "round",
        },
    )


def polygon(points: Sequence[tuple[float, float]], *, fill: str, opacity: float) -> str:
    return _element("polygon", {"points": _points(points), "fill": fill, "fill-opacity": float(opacity)})


def circle(
    cx: float,
    cy: float,
    r: float,
    *,
    fill: str,
    stroke: str | None = None,
    stroke_width: float | None = None,
    tip: str | None = None,
) -> str:
    return _element(
        "circle",
        {
            "cx": float(cx),
            "cy": float(cy),
            "r": float(r),
            "fill": fill,
            "stroke": stroke,
            "stroke-width": stroke_width,
        },
        tip,
    )


def text(
    x: float,
    y: float,
    content: str,
    *,
    size: int = 12,
    anchor: str = "start",
    fill: str = INK,
    weight: str | None = None,
    rotate: int | None = None,
) -> str:
    return _element(
        "text",
        {
            "x": float(x),
            "y": float(y),
            "font-size": size,
            "text-anchor": anchor,
            "dominant-baseline": "middle",
            "fill": fill,
            "font-weight": weight,
            "transform": None if rotate is None else f"rotate({rotate} {fmt(x)} {fmt(y)})",
        },
        body=escape(content),
    )
