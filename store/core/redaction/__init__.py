"""Redaction: what is learned, named or filed is kept without the secrets said in it.

`redactor` holds the `Redactor` (one linear pass over a text, the rules and the configured words); `rules`
the shapes of secrets, `said` the secrets said in plain words (a value a secret word introduces, credential
pairs), `reading` the text as the rules read it (folded look-alikes, encoded runs), and `json_values` the
same over a JSON value's strings.
"""
