"""poker._fast.maker: fast constructors still build ordinary frozen dataclass instances."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from poker._fast import maker


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Base:
    a: int


@dataclasses.dataclass(frozen=True, slots=True)
class Derived(Base):
    b: str


@pytest.mark.parametrize(("cls", "args"), [(Point, (1, (2, 3))), (Derived, (4, "five"))])
def test_maker_builds_equal_frozen_instances(cls: type, args: tuple[object, ...]) -> None:
    made = maker(cls)(*args)
    assert type(made) is cls
    assert made == cls(*args)
    assert hash(made) == hash(cls(*args))
    assert repr(made) == repr(cls(*args))
    assert pickle.loads(pickle.dumps(made)) == made
    field = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, field, 0)


def test_maker_refuses_classes_without_slots() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    with pytest.raises(TypeError, match="slotted"):
        maker(NoSlots)
