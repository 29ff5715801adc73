"""An in-memory stand-in for AsyncZeroconf, for tests that check what the Advertiser asks of
zeroconf (when it re-registers, what it withdraws, how it survives failures) without sockets."""

from __future__ import annotations

import asyncio
from typing import Any


class FakeAsyncZeroconf:
    """Records every call; `fail` names the methods that raise, to test error handling."""

    def __init__(self, interface: str | None, fail: tuple[str, ...] = ()) -> None:
        self.interface = interface
        self.fail = fail
        self.calls: list[tuple[str, Any]] = []
        self.registered: dict[str, Any] = {}
        self.closed = 0

    def _call(self, method: str, info: Any) -> asyncio.Future[None]:
        self.calls.append((method, info))
        if method in self.fail:
            raise OSError(f"fake {method} failure")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done

    async def async_register_service(self, info: Any, allow_name_change: bool = False) -> Any:
        broadcast = self._call("register", info)
        assert allow_name_change, "two tables with one name must be able to coexist"
        self.registered[info.name] = info
        return broadcast

    async def async_update_service(self, info: Any) -> Any:
        broadcast = self._call("update", info)
        self.registered[info.name] = info
        return broadcast

    async def async_unregister_service(self, info: Any) -> Any:
        broadcast = self._call("unregister", info)
        self.registered.pop(info.name, None)
        return broadcast

    async def async_close(self) -> None:
        self.closed += 1
        self._call("close", None)

    def methods(self) -> list[str]:
        return [method for method, _ in self.calls]


class FakeFactory:
    """A zeroconf_factory that hands out FakeAsyncZeroconf objects and keeps them for asserts."""

    def __init__(self, fail: tuple[str, ...] = ()) -> None:
        self.fail = fail
        self.made: list[FakeAsyncZeroconf] = []

    def __call__(self, interface: str | None) -> FakeAsyncZeroconf:
        if "create" in self.fail:
            raise OSError("fake: no usable interface")
        zc = FakeAsyncZeroconf(interface, self.fail)
        self.made.append(zc)
        return zc
