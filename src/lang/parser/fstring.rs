//! F-strings: parsing the replacement fields that the lexer cut out, and joining adjacent
//! string literals.

use crate::lang::ast::{ExprKind, FStringPart};
use crate::lang::lexer::{self, FPiece, TokenKind};
use crate::lang::parser::expressions::{Node, Parser};
use crate::lang::parser::SyntaxError;

impl Parser<'_> {
    /// Adjacent string literals, concatenated (`'a' f'{b}'`): a `Str`, or an `FString` when
    /// one of them is an f-string.
    pub(super) fn strings(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.peek().pos;
        let mut parts = Vec::new();
        let mut fstring = false;
        let mut height = 0;
        loop {
            match &self.peek().kind {
                TokenKind::Str(more) => parts.push(FStringPart::Text(more.clone())),
                TokenKind::FString(pieces) => {
                    let pieces = pieces.clone();
                    fstring = true;
                    height = height.max(self.fstring_parts(pieces, &mut parts)?);
                }
                _ => break,
            }
            self.bump();
        }
        let mut parts = merge_text(parts);
        let kind = match parts.as_mut_slice() {
            _ if fstring => ExprKind::FString(parts),
            [] => ExprKind::Str(String::new()),
            [FStringPart::Text(text)] => ExprKind::Str(std::mem::take(text)),
            _ => ExprKind::FString(parts),
        };
        Node::new(pos, kind, height)
    }

    /// Appends the parts of an f-string token to `out`, parsing its fields' expressions; returns
    /// the tallest field's height.
    pub(super) fn fstring_parts(
        &mut self,
        pieces: Vec<FPiece>,
        out: &mut Vec<FStringPart>,
    ) -> Result<usize, SyntaxError> {
        let mut height = 0;
        for piece in pieces {
            match piece {
                FPiece::Text(text) => out.push(FStringPart::Text(text)),
                FPiece::Field(field) => {
                    let line = lexer::tokenize_fragment(&field.expr, field.pos)?;
                    let pos = line.tokens.first().map_or(field.pos, |t| t.pos);
                    let depth = self.depth;
                    let node = self.nested(pos, |_| {
                        let mut inner = Parser::new(&line);
                        inner.depth = depth + 1;
                        let (node, _) = inner.testlist()?;
                        if !matches!(inner.peek().kind, TokenKind::End) {
                            return Err(inner.invalid_syntax());
                        }
                        Ok(node)
                    })?;
                    height = height.max(node.height);
                    out.push(FStringPart::Field {
                        expr: Box::new(node.expr),
                        conversion: field.conversion,
                        spec: field.spec,
                        debug_text: field.debug_text,
                    });
                }
            }
        }
        Ok(height)
    }
}

/// Joins adjacent text parts and drops empty ones.
fn merge_text(parts: Vec<FStringPart>) -> Vec<FStringPart> {
    let mut out: Vec<FStringPart> = Vec::new();
    for part in parts {
        match (part, out.last_mut()) {
            (FStringPart::Text(text), _) if text.is_empty() => {}
            (FStringPart::Text(text), Some(FStringPart::Text(last))) => last.push_str(&text),
            (part, _) => out.push(part),
        }
    }
    out
}
