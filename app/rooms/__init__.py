"""Presenter rooms (docs/teaching.md): a presenter steers, everyone in the room follows.

``state`` checks what a presenter mirrors, ``bus`` orders and hands on a room's states (the
part a Redis implementation replaces: docs/scaling.md), ``service`` makes rooms and checks
every presenter message. The store keeps rooms (app/storage/rooms.py); the web side joins
pages to them (app/web/ws/room_session.py, app/web/ws/room_fanout.py).
"""
