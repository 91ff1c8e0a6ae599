"""A structured value reads as what it says: sentences as written, other fields by name."""

from __future__ import annotations

import pytest

from memory_platform.integrations.value_text import value_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"favorite_food": "sushi"}, "favorite food: sushi"),
        ({"homeCity": "New York"}, "home city: New York"),
        (
            {"allergies": ["peanuts", "shellfish"], "age": 34},
            "allergies: peanuts, shellfish; age: 34",
        ),
        ({"vegetarian": True, "smoker": False}, "vegetarian: yes; smoker: no"),
        ({"sister": {"name": "Anna", "age": 30}}, "sister: name: Anna, age: 30"),
        (
            {"职业": "老师", "孩子": [{"关系": "女儿", "年龄": 3}]},
            "职业: 老师; 孩子: 关系: 女儿, 年龄: 3",
        ),
        # a sentence opens with its own subject; its field's name follows it
        ({"food_preference": "I like spicy food"}, "I like spicy food (food preference)"),
        ({"健康": "我对花粉过敏，春天要戴口罩"}, "我对花粉过敏，春天要戴口罩 (健康)"),
        # a field whose name says nothing adds nothing
        ({"text": "I love spicy Sichuan food", "stars": 5}, "I love spicy Sichuan food. stars: 5"),
        ({"content": "sushi"}, "sushi"),
        ({"memory": "我对花粉过敏", "kind": "健康"}, "我对花粉过敏。kind: 健康"),
        ({"facts": ["I like sushi.", "I live in Berlin"]}, "I like sushi. I live in Berlin"),
        ({"text": "", "note": None, "tags": []}, ""),
    ],
)
def test_a_value_reads_as_what_it_says(value: dict[str, object], text: str) -> None:
    assert value_text(value) == text
