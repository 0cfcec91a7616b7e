"""The websocket side: the endpoint, one session per connection, fan-out writers and the frames they share."""
