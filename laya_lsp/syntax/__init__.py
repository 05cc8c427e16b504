"""Syntax layer: when and how much to complete, and cleaning of every model candidate (tree-sitter, no MLX).

    doc = SyntaxDocument(text, language_id, uri)       # keep one per open document
    doc.apply_change((l0, c0), (l1, c1), new_text)      # each LSP incremental change, in order
    plan = plan_completion(doc, offset, settings)       # complete? one line or a block? token budget
    items = postprocess(doc, offset, raw_texts, plan)   # cleaned, checked, reranked candidates
"""

from .answer_brackets import AnswerBrackets, answer_brackets
from .brackets import stops_inside
from .document import SyntaxDocument
from .languages import language_for
from .plan import CompletionPlan, SyntaxSettings, plan_completion
from .postprocess import Candidate, PostprocessResult, Rejection, postprocess, postprocess_detailed

__all__ = [
    "AnswerBrackets",
    "Candidate",
    "CompletionPlan",
    "PostprocessResult",
    "Rejection",
    "SyntaxDocument",
    "SyntaxSettings",
    "answer_brackets",
    "language_for",
    "plan_completion",
    "postprocess",
    "postprocess_detailed",
    "stops_inside",
]
