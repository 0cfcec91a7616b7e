"""The upstream network policy: addresses refused on a public server, in every disguise."""

from __future__ import annotations

import ipaddress

import pytest

from app.live.pinned import PinnedBackend
from app.live.policy import Policy, PolicyRefused, embedded_ipv4, listens_publicly, why_refused

REFUSED = [
    ("127.0.0.1", "loopback"),
    ("::1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.5.4", "private"),
    ("192.168.0.10", "private"),
    ("169.254.169.254", "metadata"),
    ("169.254.10.1", "link-local"),
    ("fe80::1", "link-local"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("100.127.255.254", "carrier-grade NAT"),
    ("224.0.0.1", "multicast"),
    ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("fc00::1", "private"),
    ("fd00:ec2::254", "metadata"),
    ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
    ("::ffff:169.254.169.254", "metadata"),
    ("2002:7f00:0001::1", "loopback"),  # 6to4 of 127.0.0.1
    ("2002:a9fe:a9fe::1", "metadata"),  # 6to4 of 169.254.169.254
    ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
    ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo, client 127.0.0.1
]
ALLOWED = ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "100.128.0.1", "64:ff9b::808:808"]


@pytest.mark.parametrize(("address", "kind"), REFUSED)
def test_refused_addresses_say_why(address, kind):
    reason = why_refused(ipaddress.ip_address(address))
    assert reason is not None and kind in reason, (address, reason)


@pytest.mark.parametrize("address", ALLOWED)
def test_public_addresses_are_allowed(address):
    assert why_refused(ipaddress.ip_address(address)) is None


def test_embedded_ipv4_forms():
    assert str(embedded_ipv4(ipaddress.ip_address("::ffff:10.0.0.1"))) == "10.0.0.1"
    assert str(embedded_ipv4(ipaddress.ip_address("2002:0a00:0001::"))) == "10.0.0.1"
    assert str(embedded_ipv4(ipaddress.ip_address("64:ff9b::c0a8:0101"))) == "192.168.1.1"
    assert embedded_ipv4(ipaddress.ip_address("2606:4700::1")) is None


def resolver_of(*answers):
    calls = []

    def resolve(host, port):
        calls.append(host)
        return list(answers[min(len(calls) - 1, len(answers) - 1)])

    resolve.calls = calls
    return resolve


def test_public_server_refuses_private_names_before_connecting():
    policy = Policy(public=True, resolver=resolver_of(["10.0.0.7"]))
    with pytest.raises(PolicyRefused, match=r"10\.0\.0\.7, a private address"):
        policy.resolve("internal.example", 443)


def test_any_bad_address_among_several_refuses():
    policy = Policy(public=True, resolver=resolver_of(["93.184.216.34", "127.0.0.1"]))
    with pytest.raises(PolicyRefused, match="loopback"):
        policy.resolve("mixed.example", 443)


def test_loopback_server_allows_everything_localhost_included():
    policy = Policy(public=False, resolver=resolver_of(["127.0.0.1"]))
    assert policy.resolve("localhost", 8000) == "127.0.0.1"
    assert Policy(public=False).resolve("127.0.0.1", 8000) == "127.0.0.1"


def test_allow_list_by_host_or_network():
    by_host = Policy(public=True, allow=("vllm.internal",), resolver=resolver_of(["10.0.0.5"]))
    assert by_host.resolve("vllm.internal", 8000) == "10.0.0.5"
    by_net = Policy(public=True, allow=("10.0.0.0/8",), resolver=resolver_of(["10.9.9.9"]))
    assert by_net.resolve("gpu.example", 8000) == "10.9.9.9"
    with pytest.raises(PolicyRefused):
        Policy(public=True, allow=("10.0.0.0/8",), resolver=resolver_of(["192.168.1.1"])).resolve(
            "x.example", 80
        )


def test_a_dns_answer_that_changes_between_lookups_cannot_slip_past():
    # First answer public, any later one private (DNS rebinding). We look up once, and the
    # connection goes to the checked address, not to a second lookup.
    resolver = resolver_of(["93.184.216.34"], ["127.0.0.1"])
    policy = Policy(public=True, resolver=resolver)
    address = policy.resolve("rebind.example", 80)
    assert address == "93.184.216.34"
    assert resolver.calls == ["rebind.example"]
    connected = []

    class Recorder:
        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            connected.append(host)
            raise OSError("not really connecting")

    backend = PinnedBackend({"rebind.example": address}, lambda s: None)
    backend._backend = Recorder()
    with pytest.raises(OSError):
        backend.connect_tcp("rebind.example", 80)
    assert connected == ["93.184.216.34"]
    assert resolver.calls == ["rebind.example"]


def test_unresolvable_names_are_refused_with_the_reason():
    def failing(host, port):
        raise OSError(-2, "Name or service not known")

    with pytest.raises(PolicyRefused, match=r"cannot resolve nowhere\.invalid"):
        Policy(public=True, resolver=failing).resolve("nowhere.invalid", 443)


def test_which_listening_addresses_count_as_public():
    assert not listens_publicly("127.0.0.1")
    assert not listens_publicly("::1")
    assert not listens_publicly("localhost")
    assert listens_publicly("0.0.0.0")
    assert listens_publicly("192.168.1.20")
