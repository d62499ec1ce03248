"""A real S3-compatible server for the tests: moto's standalone server, started on a free port.

moto's server speaks S3 and DynamoDB over HTTP, so LanceDB's object-store support (``s3://``) and its
DynamoDB commit store (``s3+ddb://…?ddbTableName=…``) run against it as against AWS: the same
requests, the same conditional writes. Nothing here mocks boto or LanceDB; the test process and the
``seams`` commands it starts reach the server through the usual AWS environment variables
(:attr:`ObjectStore.env`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ObjectStore:
    """A running moto server: its endpoint and the environment that points clients at it."""

    endpoint: str
    env: dict[str, str] = field(default_factory=dict)

    def client(self, service: str = "s3"):
        import boto3

        return boto3.client(service, endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id="testing", aws_secret_access_key="testing")

    def bucket(self, prefix: str = "kb") -> str:
        """A new, empty bucket (a name of its own per call, so tests never share one)."""
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def commit_table(self) -> str:
        """A new DynamoDB table laid out as LanceDB's commit store wants it (``base_uri`` and
        ``version``), for ``s3+ddb://bucket/path?ddbTableName=NAME``."""
        name = f"lance-commits-{uuid.uuid4().hex[:12]}"
        self.client("dynamodb").create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "base_uri", "KeyType": "HASH"},
                       {"AttributeName": "version", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "base_uri", "AttributeType": "S"},
                                  {"AttributeName": "version", "AttributeType": "N"}],
            BillingMode="PAY_PER_REQUEST")
        return name

    def upload(self, folder: Path, bucket: str, prefix: str) -> list[str]:
        """Put every file under ``folder`` at ``prefix/RELATIVE_PATH``; returns the keys."""
        s3 = self.client()
        keys = []
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            key = f"{prefix.rstrip('/')}/{path.relative_to(folder).as_posix()}"
            s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())
            keys.append(key)
        return keys


def _command(port: int) -> list[str]:
    script = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or shutil.which("moto_server")
    if script:
        return [script, "-H", "127.0.0.1", "-p", str(port)]
    return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]


@contextlib.contextmanager
def moto_server(log: Path) -> Iterator[ObjectStore]:
    """Start ``moto_server`` on a free port, wait until it answers, and stop it at the end."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with open(log, "ab") as out:
        process = subprocess.Popen(_command(port), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto_server did not start: {log.read_text(errors='replace')[-2000:]}") from None
                time.sleep(0.1)
        env = {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_ALLOW_HTTP": "true",  # LanceDB's object store refuses plain HTTP endpoints otherwise
            "DYNAMODB_ENDPOINT": endpoint,  # LanceDB's DynamoDB commit store reads this, not AWS_ENDPOINT_URL
        }
        yield ObjectStore(endpoint, env)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def applied(env: dict[str, str]) -> contextlib.AbstractContextManager:
    """A context in which ``os.environ`` holds ``env`` (restored after)."""
    @contextlib.contextmanager
    def apply():
        saved = {name: os.environ.get(name) for name in env}
        os.environ.update(env)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    return apply()
