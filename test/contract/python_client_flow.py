"""A small flow through the Python client openapi-python-client generated from the served
openapi.json: a list with a number property, items on it, the sum of that property, and a
repeating task completed. Prints what the test checks as one JSON object; any refusal raises.

Run by test/contract/python-client.test.ts with LK_URL, LK_KEY and the generated
package (`listkeeper_client`) on PYTHONPATH.
"""
import json
import os
from uuid import UUID

from listkeeper_client import AuthenticatedClient
from listkeeper_client.api.items import create_items, get_item, query_items, update_items
from listkeeper_client.api.lists import create_list
from listkeeper_client.models import CreateItemsInput, CreateListInput, QueryItemsInput, UpdateItemsInput


def parsed(response):
    """The parsed body of a 2xx answer; raises with the status and body of any other."""
    if response.status_code // 100 != 2:
        raise RuntimeError(f"{response.status_code}: {response.content.decode()}")
    return response.parsed


client = AuthenticatedClient(base_url=os.environ["LK_URL"] + "/api/v1", token=os.environ["LK_KEY"], raise_on_unexpected_status=True)
with client:
    books = parsed(create_list.sync_detailed(client=client, body=CreateListInput.from_dict({
        "name": "Books",
        "properties": [{"name": "Pages", "type": "number"}, {"name": "Shelf", "type": "select", "options": ["Read", "To read"]}],
    })))
    made = parsed(create_items.sync_detailed(client=client, body=CreateItemsInput.from_dict({
        "listId": str(books.id),
        "items": [
            {"title": "Dune", "values": {"Pages": 412, "Shelf": "Read"}},
            {"title": "Emma", "values": {"Pages": 474, "Shelf": "Read"}},
            {"title": "Ulysses", "values": {"Pages": 730, "Shelf": "To read"}},
        ],
    })))
    read = parsed(query_items.sync_detailed(client=client, body=QueryItemsInput.from_dict({
        "listId": str(books.id),
        "mode": "sum",
        "sumPropertyId": "Pages",
        "where": [{"property": "Shelf", "op": "eq", "value": "Read"}],
    })))
    task = parsed(create_items.sync_detailed(client=client, body=CreateItemsInput.from_dict({
        "listId": "tasks",
        "items": [{"title": "Water the plants", "dueAt": "2030-01-07T09:00:00Z", "recurrence": "FREQ=DAILY"}],
    }))).items[0]
    parsed(update_items.sync_detailed(client=client, body=UpdateItemsInput.from_dict({
        "items": [{"itemId": str(task.id)}],
        "taskStatus": "completed",
    })))
    after = parsed(get_item.sync_detailed(UUID(str(task.id)), client=client))

print(json.dumps({
    "listName": books.name,
    "added": made.added,
    "count": read.count,
    "sum": read.sum_,
    "task": {"before": task.due_at, "after": after.due_at, "status": after.task_status.value},
}))
