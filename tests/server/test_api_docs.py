"""The API documentation page works offline: Swagger UI comes from the installed package, not a CDN."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_docs_page_loads_swagger_ui_from_the_server_itself(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    urls = re.findall(r"""(?:src|href|url)\s*[:=]\s*['"]([^'"]+)['"]""", page.text)
    assert urls, "the docs page names no scripts or styles"
    external = [u for u in urls if u.startswith(("http://", "https://", "//"))]
    assert not external, f"the docs page fetches from the network: {external}"
    for url in urls:
        assert client.get(url).status_code == 200, url


def test_openapi_spec_lists_the_monitor_routes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/api/tables" in spec["paths"]
