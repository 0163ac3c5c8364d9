//! Atoms and displays: literals and names, parenthesized forms, lists, dicts and sets,
//! comprehensions, call arguments and subscripts (the leaves of
//! [`expressions`](super::expressions)' precedence climbing).

use crate::lang::ast::{ComprehensionKind, Expr, ExprKind, Generator, Pos};
use crate::lang::lexer::TokenKind;
use crate::lang::parser::expressions::{is_keyword, unzip, Node, Parser};
use crate::lang::parser::SyntaxError;

impl Parser<'_> {
    /// atom: a literal, a name, `...`, an f-string, or a parenthesized form, list or dict.
    pub(super) fn atom(&mut self) -> Result<Node, SyntaxError> {
        if matches!(self.peek().kind, TokenKind::Str(_) | TokenKind::FString(_)) {
            return self.strings();
        }
        let token = self.bump();
        let pos = token.pos;
        let kind = match token.kind {
            TokenKind::Name(name) => match name.as_str() {
                "True" => ExprKind::Bool(true),
                "False" => ExprKind::Bool(false),
                "None" => ExprKind::None,
                word if is_keyword(word) => return Err(SyntaxError::new(pos, "invalid syntax")),
                _ => ExprKind::Name(name),
            },
            TokenKind::Int(value) => ExprKind::Int(value),
            TokenKind::Float(value) => ExprKind::Float(value),
            TokenKind::Imag(value) => ExprKind::Imag(value),
            TokenKind::Op("...") => ExprKind::Ellipsis,
            TokenKind::Op("(") => return self.nested(pos, |p| p.parenthesized(pos)),
            TokenKind::Op("[") => return self.nested(pos, |p| p.list(pos)),
            TokenKind::Op("{") => return self.nested(pos, |p| p.braces(pos)),
            TokenKind::Op("*") => {
                return Err(SyntaxError::new(pos, "can't use starred expression here"))
            }
            _ => return Err(SyntaxError::new(pos, "invalid syntax")),
        };
        Ok(Node::leaf(pos, kind))
    }

    /// After `(`: `()`, `(expr)`, a tuple, or a generator expression; its pos is the `(`.
    pub(super) fn parenthesized(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        if self.eat_op(")") {
            return Ok(Node::leaf(open, ExprKind::Tuple(Vec::new())));
        }
        let first = self.star_or_expr()?;
        if self.is_name("for") {
            let node = self.comprehension(open, ComprehensionKind::Generator, first)?;
            self.expect_op(")")?;
            return Ok(node);
        }
        if self.is_op(")") {
            if let ExprKind::Starred(_) = first.expr.kind {
                return Err(SyntaxError::new(
                    first.expr.pos,
                    "can't use starred expression here",
                ));
            }
            self.bump();
            return Ok(Node {
                expr: Expr {
                    pos: open,
                    ..first.expr
                },
                height: first.height,
            });
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.is_op(")") {
            items.push(self.star_or_expr()?);
        }
        self.expect_op(")")?;
        let (items, height) = unzip(items);
        Node::new(open, ExprKind::Tuple(items), height)
    }

    /// After `[`: a list display (trailing comma allowed) or a list comprehension.
    pub(super) fn list(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        let mut items = Vec::new();
        while !self.eat_op("]") {
            let item = self.star_or_expr()?;
            if items.is_empty() && self.is_name("for") {
                let node = self.comprehension(open, ComprehensionKind::List, item)?;
                self.expect_op("]")?;
                return Ok(node);
            }
            items.push(item);
            if !self.eat_op(",") {
                self.expect_op("]")?;
                break;
            }
        }
        let (items, height) = unzip(items);
        Node::new(open, ExprKind::List(items), height)
    }

    /// After `{`: a dict display or a set comprehension (set displays are not supported).
    pub(super) fn braces(&mut self, open: Pos) -> Result<Node, SyntaxError> {
        let mut entries = Vec::new();
        let mut height = 0;
        while !self.eat_op("}") {
            if self.is_op("**") {
                return Err(SyntaxError::new(
                    self.peek().pos,
                    "dict unpacking with '**' is not supported here",
                ));
            }
            let key = self.star_or_expr()?;
            if entries.is_empty() && self.is_name("for") {
                let node = self.comprehension(open, ComprehensionKind::Set, key)?;
                self.expect_op("}")?;
                return Ok(node);
            }
            if !self.is_op(":") {
                if self.is_op(",") || self.is_op("}") {
                    return Err(SyntaxError::new(
                        open,
                        "set displays are not supported here",
                    ));
                }
                return Err(self.invalid_syntax());
            }
            self.bump();
            let value = self.expr()?;
            if entries.is_empty() && self.is_name("for") {
                let height = key.height.max(value.height);
                let pair = Node::new(
                    key.expr.pos,
                    ExprKind::Tuple(vec![key.expr, value.expr]),
                    height,
                )?;
                let node = self.comprehension(open, ComprehensionKind::Dict, pair)?;
                self.expect_op("}")?;
                return Ok(node);
            }
            height = height.max(key.height).max(value.height);
            entries.push((key.expr, value.expr));
            if !self.eat_op(",") {
                self.expect_op("}")?;
                break;
            }
        }
        Node::new(open, ExprKind::Dict(entries), height)
    }

    /// The `for ... in ... if ...` clauses after a comprehension's `element`.
    pub(super) fn comprehension(
        &mut self,
        pos: Pos,
        kind: ComprehensionKind,
        element: Node,
    ) -> Result<Node, SyntaxError> {
        if let ExprKind::Starred(_) = element.expr.kind {
            return Err(SyntaxError::new(
                element.expr.pos,
                "iterable unpacking cannot be used in comprehension",
            ));
        }
        let mut height = element.height;
        let mut generators = Vec::new();
        while self.is_name("for") {
            self.bump();
            let (target, bare) = self.target_list()?;
            height = height.max(target.height);
            let target = crate::lang::parser::statements::to_target(target.expr, bare, false)?;
            if !self.is_name("in") {
                return Err(self.invalid_syntax());
            }
            self.bump();
            let iter = self.bool_op(false)?;
            height = height.max(iter.height);
            let mut ifs = Vec::new();
            while self.is_name("if") {
                self.bump();
                let cond = self.bool_op(false)?;
                height = height.max(cond.height);
                ifs.push(cond.expr);
            }
            generators.push(Generator {
                target,
                iter: iter.expr,
                ifs,
            });
        }
        let kind = ExprKind::Comprehension {
            kind,
            element: Box::new(element.expr),
            generators,
        };
        Node::new(pos, kind, height)
    }

    /// After a call's `(`: positional (possibly starred) then keyword arguments, trailing comma
    /// allowed, or a lone generator expression.
    #[allow(clippy::type_complexity)]
    pub(super) fn call_arguments(
        &mut self,
    ) -> Result<(Vec<Expr>, Vec<(String, Expr)>, usize), SyntaxError> {
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Expr)> = Vec::new();
        let mut height = 0;
        let mut count = 0;
        while !self.eat_op(")") {
            count += 1;
            let token = self.peek().clone();
            let keyword = match &token.kind {
                TokenKind::Op("**") => {
                    self.bump();
                    let value = self.expr()?;
                    height = height.max(value.height);
                    kwargs.push(("**".to_string(), value.expr));
                    if !self.eat_op(",") {
                        self.expect_op(")")?;
                        break;
                    }
                    continue;
                }
                TokenKind::Name(name)
                    if !is_keyword(name) && matches!(self.peek_at(1).kind, TokenKind::Op("=")) =>
                {
                    Some(name.clone())
                }
                _ => None,
            };
            if let Some(name) = keyword {
                self.bump();
                self.bump();
                let value = self.expr()?;
                if self.is_name("for") {
                    return Err(SyntaxError::new(
                        value.expr.pos,
                        "Generator expression must be parenthesized",
                    ));
                }
                if kwargs.iter().any(|(k, _)| *k == name) {
                    return Err(SyntaxError::new(
                        token.pos,
                        format!("keyword argument repeated: {name}"),
                    ));
                }
                height = height.max(value.height);
                kwargs.push((name, value.expr));
            } else {
                let mut arg = self.star_or_expr()?;
                if self.is_name("for") {
                    let pos = arg.expr.pos;
                    arg = self.comprehension(pos, ComprehensionKind::Generator, arg)?;
                    if count > 1 || !self.is_op(")") {
                        return Err(SyntaxError::new(
                            pos,
                            "Generator expression must be parenthesized",
                        ));
                    }
                }
                if self.is_op("=") {
                    let message = match arg.expr.kind {
                        ExprKind::Bool(_) | ExprKind::None => {
                            format!(
                                "cannot assign to {}",
                                crate::lang::parser::statements::expr_name(&arg.expr.kind)
                            )
                        }
                        _ => "expression cannot contain assignment, perhaps you meant \"==\"?"
                            .to_string(),
                    };
                    return Err(SyntaxError::new(arg.expr.pos, message));
                }
                if !kwargs.is_empty() && !matches!(arg.expr.kind, ExprKind::Starred(_)) {
                    return Err(SyntaxError::new(
                        arg.expr.pos,
                        "positional argument follows keyword argument",
                    ));
                }
                height = height.max(arg.height);
                args.push(arg.expr);
            }
            if !self.eat_op(",") {
                self.expect_op(")")?;
                break;
            }
        }
        Ok((args, kwargs, height))
    }
    /// After a subscript's `[`: one index, or several (or one with a trailing comma) as a tuple.
    pub(super) fn subscript(&mut self) -> Result<Node, SyntaxError> {
        let first = self.slice_item()?;
        if !self.eat_op(",") {
            self.expect_op("]")?;
            return Ok(first);
        }
        let pos = first.expr.pos;
        let mut items = vec![first];
        while !self.is_op("]") {
            items.push(self.slice_item()?);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("]")?;
        let (items, height) = unzip(items);
        Node::new(pos, ExprKind::Tuple(items), height)
    }

    /// An index: an expression or a slice `start:stop:step` with any part omitted.
    pub(super) fn slice_item(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.peek().pos;
        let start = if self.is_op(":") {
            None
        } else {
            let start = self.expr()?;
            if !self.is_op(":") {
                return Ok(start);
            }
            Some(start)
        };
        self.bump();
        let stop = self.slice_part()?;
        let step = if self.eat_op(":") {
            self.slice_part()?
        } else {
            None
        };
        let parts = [start, stop, step];
        let height = parts.iter().flatten().map(|n| n.height).max().unwrap_or(0);
        let [start, stop, step] = parts.map(|part| part.map(|n| Box::new(n.expr)));
        Node::new(pos, ExprKind::Slice { start, stop, step }, height)
    }

    /// A slice's stop or step, absent before `:`, `,` or `]`.
    pub(super) fn slice_part(&mut self) -> Result<Option<Node>, SyntaxError> {
        if self.is_op(":") || self.is_op(",") || self.is_op("]") {
            Ok(None)
        } else {
            self.expr().map(Some)
        }
    }
}
