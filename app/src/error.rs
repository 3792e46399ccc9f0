//! The one error type that crosses the server-function boundary, and how it is shown.
use leptos::prelude::*;
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

/// Everything a server function can answer besides success. Messages are written for the person
/// reading the page; `Internal` carries nothing from the server (details go to the log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("{message}")]
    Validation { field: String, message: String },
    #[error("Please log in first.")]
    Unauthenticated,
    #[error("You do not have permission to do that.")]
    Forbidden,
    #[error("Not found.")]
    NotFound,
    #[error("{0}")]
    Conflict(String),
    #[error(
        "Wrong username or password. If your account was blocked, contact the study's organisers."
    )]
    BadCredentials,
    /// The session changed (a login or logout in another tab, through any server) while the call
    /// was running, each time it was tried: nothing was done.
    #[error("Your login changed while this was being sent (in another tab?), so it was not saved. Reload the page and try again.")]
    SessionChanged,
    #[error("Too many attempts. Try again in {retry_after_secs} seconds.")]
    RateLimited { retry_after_secs: u64 },
    #[error("The server is busy. Try again in a moment.")]
    Overloaded,
    #[error(
        "The database is not answering right now. Nothing you saved is lost; please try again in a moment."
    )]
    DatabaseUnavailable,
    #[error("Something went wrong on the server. Your work is safe; please try again.")]
    Internal,
    #[error("The request could not be sent or read: {0}")]
    Transport(String),
    /// A crowd platform's API refused a call or did not answer; the message says which and why.
    #[error("{0}")]
    Platform(String),
}

impl AppError {
    /// A refused field value.
    pub fn validation(field: &str, message: impl ToString) -> Self {
        AppError::Validation {
            field: field.to_owned(),
            message: message.to_string(),
        }
    }

    /// The HTTP status this error is answered with.
    pub fn status_code(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            AppError::Validation { .. } => S::UNPROCESSABLE_ENTITY,
            AppError::Unauthenticated | AppError::BadCredentials => S::UNAUTHORIZED,
            AppError::Forbidden => S::FORBIDDEN,
            AppError::NotFound => S::NOT_FOUND,
            AppError::Conflict(_) | AppError::SessionChanged => S::CONFLICT,
            AppError::RateLimited { .. } => S::TOO_MANY_REQUESTS,
            AppError::Overloaded | AppError::DatabaseUnavailable => S::SERVICE_UNAVAILABLE,
            AppError::Internal => S::INTERNAL_SERVER_ERROR,
            AppError::Transport(_) => S::BAD_REQUEST,
            AppError::Platform(_) => S::BAD_GATEWAY,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        let error = match value {
            // Malformed arguments (a missing form field, a bad number) are the caller's fault.
            ServerFnErrorErr::Args(m) | ServerFnErrorErr::MissingArg(m) => AppError::Transport(m),
            ServerFnErrorErr::Request(m) => AppError::Transport(m),
            // On the server this is the request's body that could not be decoded (not UTF-8,
            // say); server_fn's own words ("error deserializing server function results")
            // would blame the answer.
            #[cfg(feature = "ssr")]
            ServerFnErrorErr::Deserialization(m) => {
                AppError::Transport(format!("the request's body is not a readable form ({m})"))
            }
            other => AppError::Transport(other.to_string()),
        };
        // Arguments are decoded before the function body runs, so its status is set here.
        #[cfg(feature = "ssr")]
        set_response_status(&error);
        error
    }
}

/// Whether the server function being called was sent by a plain HTML form (a browser that
/// asks for a page back), not by the app's script or a program, which ask for data.
#[cfg(feature = "ssr")]
pub fn is_form_post() -> bool {
    use_context::<http::request::Parts>()
        .and_then(|p| {
            p.headers
                .get(http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.contains("text/html"))
        })
        .unwrap_or(false)
}

/// Gives a failed server function's response the error's HTTP status (403, 422, ...) for
/// programmatic callers. A plain HTML form post (JavaScript off) keeps leptos's redirect back to
/// the form, which carries the error in the URL so the page can show it.
#[cfg(feature = "ssr")]
pub fn set_response_status(error: &AppError) {
    let Some(options) = use_context::<leptos_axum::ResponseOptions>() else {
        return;
    };
    if !is_form_post() {
        options.set_status(error.status_code());
    }
    if let AppError::RateLimited { retry_after_secs } = error {
        options.insert_header(
            http::header::RETRY_AFTER,
            http::HeaderValue::from(*retry_after_secs),
        );
    }
}

impl From<crate::domain::AccountError> for AppError {
    fn from(e: crate::domain::AccountError) -> Self {
        use crate::domain::AccountError as E;
        let field = match e {
            E::UsernameLength { .. } | E::UsernameCharacters => "username",
            E::PasswordTooShort { .. }
            | E::PasswordTooLong { .. }
            | E::PasswordTooGuessable { .. } => "password",
            E::PasswordMismatch => "password_confirmation",
            E::UnknownRole(_) => "role",
        };
        AppError::validation(field, e)
    }
}

#[cfg(feature = "ssr")]
impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::PoolTimedOut => {
                // Expected back-pressure under load (answered 503 "busy"): a warning, at most
                // one every 10 s.
                static BUSY: crate::log_limit::Limited =
                    crate::log_limit::Limited::new(std::time::Duration::from_secs(10));
                if let Some(left_out) = BUSY.due() {
                    tracing::warn!(
                        error.message = %e,
                        left_out,
                        "no database connection in time: answered busy"
                    );
                }
                AppError::Overloaded
            }
            sqlx::Error::Io(_) | sqlx::Error::PoolClosed => {
                tracing::error!(error.message = %e, "database unavailable");
                AppError::DatabaseUnavailable
            }
            _ => {
                tracing::error!(error.cause_chain = ?e, error.message = %e, "database error");
                AppError::Internal
            }
        }
    }
}

/// A page whose own data was refused or is not there: the error in words, under the page's
/// heading when the page has none yet, and, rendered on the server, answered with its HTTP
/// status (401, 403, 404) instead of 200, so a browser, a crawler or a monitor sees it too.
/// Other errors (a closed campaign, a database away) keep the page's 200: the page itself is
/// fine.
#[component]
pub fn PageError(
    error: AppError,
    #[prop(optional)] heading: Option<&'static str>,
) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if matches!(
        error,
        AppError::Unauthenticated | AppError::Forbidden | AppError::NotFound
    ) {
        if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
            resp.set_status(error.status_code());
        }
    }
    view! {
        {heading.map(|h| view! { <h1>{h}</h1> })}
        <ErrorMessage error />
    }
}

/// Shows an error where a page's data would be, in words a user understands.
#[component]
pub fn ErrorMessage(error: AppError) -> impl IntoView {
    let class = match error {
        AppError::Unauthenticated | AppError::Forbidden => "notice warn",
        _ => "notice error",
    };
    let hint = matches!(error, AppError::Unauthenticated)
        .then(|| view! { " " <a href="/login">"Log in"</a> });
    view! {
        <p class=class role="alert">
            {error.to_string()}
            {hint}
        </p>
    }
}

impl From<crate::domain::Invalid> for AppError {
    fn from(e: crate::domain::Invalid) -> Self {
        AppError::validation(e.field, e.message)
    }
}
