"""Validates JSON reports against docs/schema/opmap-report-5.schema.json (python3-jsonschema).

Every test that reads a JSON report from opmap calls validate(), so every report the suite
produces is checked against the published schema.
"""
import json
import os

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(HERE, "..", "..", "docs", "schema", "opmap-report-5.schema.json")

with open(SCHEMA_PATH) as f:
    SCHEMA = json.load(f)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
VALIDATOR.check_schema(SCHEMA)


def validate(report):
    errors = sorted(VALIDATOR.iter_errors(report), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        raise AssertionError("report does not match %s at %s: %s (%d errors)" % (
            os.path.basename(SCHEMA_PATH), "/".join(str(p) for p in e.path), e.message,
            len(errors)))
    return report
