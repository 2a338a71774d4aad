"""The after-sales story through the zeromem service, with only Python's standard library.

Usage: ZEROMEM_URL=http://127.0.0.1:8788 ZEROMEM_SERVE_TOKEN=... python3 after_sales.py
"""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

URL = os.environ.get("ZEROMEM_URL", "http://127.0.0.1:8788")
TOKEN = os.environ["ZEROMEM_SERVE_TOKEN"]
NS = {"userId": "wang", "agentId": "after-sales"}


def call(method, path, body=None, query=None):
    """One request; returns (status, parsed JSON). Errors come back as their JSON body too."""
    url = URL + path + ("?" + urllib.parse.urlencode(query) if query else "")
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", "Bearer " + TOKEN)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode("utf-8"))


status, written = call("POST", "/v1/memories", {
    "namespace": NS,
    "id": "TS20240315",
    "content": "用户王先生反馈充电口接触不良，已生成工单 TS20240315，约定周三回访",
    "tags": ["工单"],
    "metadata": {"status": "open"},
})
print("remember", status, written["id"])

status, recalled = call("POST", "/v1/recall", {"namespace": NS, "query": "上次充电口的问题处理到哪一步了", "k": 3})
top = recalled["hits"][0]
print("recall", status, top["id"], round(top["score"], 3), top["record"]["content"])

status, context = call("POST", "/v1/context", {"namespace": NS, "query": "上次充电口的问题处理到哪一步了", "budget": 200})
print("context", status, context["report"]["tokens"], "tokens")

status, forgotten = call("DELETE", "/v1/memories/TS20240315", query=NS)
print("forget", status, forgotten)

status, after = call("POST", "/v1/recall", {"namespace": NS, "query": "上次充电口的问题处理到哪一步了"})
print("recall after forget", status, len(after["hits"]), "hits")

status, error = call("GET", "/v1/memories/TS20240315", query=NS)
print("get after forget", status, error["error"]["code"])
