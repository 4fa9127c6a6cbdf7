"""Hosts for `make scale-test`: network namespaces on one machine, wired to one switch, and the processes each
host runs. Everything made here is named with the fixed prefix `rpst-` so a later run (`sweep`) can remove
what a killed run left: namespaces (and every process inside them), veth ends, the PostgreSQL data directory.

Layout (private addresses only, nothing in the root namespace):

    rpst-sw   bridge rpst-br, one veth end per host          (the switch; cutting a host = its end down)
    rpst-db   10.87.0.10  PostgreSQL (initdb'd in a temp dir, as the postgres user) + redis-server
    rpst-appN 10.87.0.1N  gunicorn + a Celery rules worker (+ beat), app1 also the notifier
    rpst-drv  10.87.0.2   the driver (this process moves itself there) that plays the games
"""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "rpst-"
SUBNET = "10.87.0"
SWITCH = f"{PREFIX}sw"
BRIDGE = f"{PREFIX}br"
DRIVER = f"{PREFIX}drv"
CLONE_NEWNET = 0x40000000


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), check=check, capture_output=True, text=True, timeout=60)


def namespaces() -> list[str]:
    listed = sh("ip", "netns", "list", check=False).stdout.split("\n")
    return [line.split()[0] for line in listed if line.startswith(PREFIX)]


def sweep() -> list[str]:
    """Remove whatever an earlier run left behind (it may have been SIGKILLed): the processes inside our
    namespaces, the namespaces, stray veth ends in this namespace, PostgreSQL data directories."""
    removed = []
    for ns in namespaces():
        pids = sh("ip", "netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            if pid == str(os.getpid()):
                continue  # the driver itself lives in its namespace
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        sh("ip", "netns", "del", ns, check=False)
        removed.append(ns)
    for line in sh("ip", "-o", "link", "show", check=False).stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0] if ":" in line else ""
        if name.startswith(PREFIX):
            sh("ip", "link", "del", name, check=False)
            removed.append(name)
    for path in glob.glob(f"/tmp/{PREFIX}pg-*"):
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


@dataclass
class Host:
    name: str  # without the prefix: db, app1, app2
    address: str

    @property
    def ns(self) -> str:
        return PREFIX + self.name

    @property
    def port(self) -> str:  # the switch's end of this host's cable
        return f"{PREFIX}{self.name}-s"


def build(hosts: list[Host]) -> Host:
    """Namespaces, the switch and one cable per host (and the driver's). Returns the driver's host."""
    driver = Host("drv", f"{SUBNET}.2")
    sh("ip", "netns", "add", SWITCH)
    sh("ip", "-n", SWITCH, "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "-n", SWITCH, "link", "set", BRIDGE, "up")
    for host in [*hosts, driver]:
        sh("ip", "netns", "add", host.ns)
        sh("ip", "-n", host.ns, "link", "set", "lo", "up")
        inner = f"{PREFIX}{host.name}-h"
        sh("ip", "link", "add", inner, "type", "veth", "peer", "name", host.port)
        sh("ip", "link", "set", inner, "netns", host.ns)
        sh("ip", "link", "set", host.port, "netns", SWITCH)
        sh("ip", "-n", host.ns, "link", "set", inner, "name", "eth0")
        sh("ip", "-n", host.ns, "addr", "add", f"{host.address}/24", "dev", "eth0")
        sh("ip", "-n", host.ns, "link", "set", "eth0", "up")
        sh("ip", "-n", SWITCH, "link", "set", host.port, "master", BRIDGE)
        sh("ip", "-n", SWITCH, "link", "set", host.port, "up")
    return driver


def cable(host: Host, up: bool) -> None:
    """Plug or pull the host's cable at the switch: its own interface stays up, packets just stop."""
    sh("ip", "-n", SWITCH, "link", "set", host.port, "up" if up else "down")


def enter(ns: str) -> None:
    """Move this process (its calling thread, and every thread and socket made after) into `ns`."""
    libc = ctypes.CDLL(None, use_errno=True)
    with open(f"/var/run/netns/{ns}") as f:
        if libc.setns(f.fileno(), CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")


@dataclass
class Proc:
    """One supervised process on a host (as systemd's Restart=always would keep it): `restart` set, the
    supervisor starts it again after it dies, until the host is taken down."""

    host: Host
    role: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    cwd: Path
    user: str | None = None
    popen: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    up: bool = True

    def start(self) -> None:
        prefix = ["ip", "netns", "exec", self.host.ns]
        if self.user:
            prefix += ["setpriv", f"--reuid={self.user}", f"--regid={self.user}", "--init-groups"]
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(prefix + self.argv, env=self.env, cwd=self.cwd, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            assert self.popen is not None
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass


@dataclass
class Fleet:
    procs: list[Proc] = field(default_factory=list)

    def add(self, proc: Proc) -> Proc:
        self.procs.append(proc)
        proc.start()
        return proc

    def on(self, host: Host, role: str | None = None) -> list[Proc]:
        return [p for p in self.procs if p.host.name == host.name and (role is None or p.role == role)]

    def supervise(self) -> None:
        """One pass: start again what died on a host that is up (Restart=always)."""
        for proc in self.procs:
            if proc.up and not proc.alive():
                proc.restarts += 1
                proc.start()

    def stop_all(self) -> None:
        """The end of the run: nothing on these hosts is kept, so no graceful shutdown is waited for."""
        for proc in self.procs:
            proc.up = False
            proc.signal(signal.SIGKILL)
        for proc in self.procs:
            if proc.popen is not None:
                try:
                    proc.popen.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass


def wait_port(ns: str, address: str, port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        probe = ["ip", "netns", "exec", ns, "bash", "-c", f"exec 3<>/dev/tcp/{address}/{port}"]
        if subprocess.run(probe, capture_output=True).returncode == 0:
            return
        time.sleep(0.3)
    raise TimeoutError(f"{address}:{port} in {ns} did not open in {timeout} s")
