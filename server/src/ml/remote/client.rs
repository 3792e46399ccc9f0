//! The Open Inference Protocol over gRPC: readiness, metadata and `ModelInfer`, with integer
//! tensors sent as raw little-endian bytes and float outputs read back the same way (or from the
//! typed contents, for servers that answer so). Every call has a deadline.
use std::collections::HashMap;
use std::time::Duration;

use ndarray::Array2;
use tonic::transport::{Channel, Endpoint};

use super::proto::grpc_inference_service_client::GrpcInferenceServiceClient;
use super::proto::infer_parameter::ParameterChoice;
use super::proto::model_infer_request::{InferInputTensor, InferRequestedOutputTensor};
use super::proto::{
    InferParameter, ModelInferRequest, ModelMetadataRequest, ModelMetadataResponse,
    ModelReadyRequest, ServerReadyRequest,
};

/// Why a call did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("the inference server did not answer within {0:?}")]
    Deadline(Duration),
    #[error("the inference server cannot be reached: {0}")]
    Unreachable(String),
    #[error("the inference server refused the call: {0}")]
    Refused(String),
    #[error("the inference server's answer is malformed: {0}")]
    Malformed(String),
}

/// A float output: its shape and values in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// A cheap-to-clone client of one server (one HTTP/2 connection, reconnected as needed).
#[derive(Clone)]
pub struct InferenceClient {
    inner: GrpcInferenceServiceClient<Channel>,
    url: String,
}

/// Largest answer accepted: an embedding batch's hidden states run to megabytes.
const MAX_MESSAGE: usize = 256 << 20;

impl InferenceClient {
    /// A client that connects at its first call (and again after the server restarts).
    pub fn new(url: &str) -> anyhow::Result<Self> {
        let endpoint = Endpoint::from_shared(url.to_owned())
            .map_err(|e| anyhow::anyhow!("{url} is not a gRPC address: {e}"))?
            .connect_timeout(Duration::from_secs(1))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(10))
            .keep_alive_timeout(Duration::from_secs(5));
        let inner = GrpcInferenceServiceClient::new(endpoint.connect_lazy())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        Ok(Self {
            inner,
            url: url.to_owned(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the server and every one of `models` are ready.
    pub async fn ready(&self, models: &[&str], deadline: Duration) -> Result<bool, CallError> {
        let mut client = self.inner.clone();
        let server = within(
            deadline,
            client.server_ready(request(ServerReadyRequest {}, deadline)),
        )
        .await?;
        if !server.ready {
            return Ok(false);
        }
        for model in models {
            let ready = within(
                deadline,
                client.model_ready(request(
                    ModelReadyRequest {
                        name: (*model).to_owned(),
                        version: String::new(),
                    },
                    deadline,
                )),
            )
            .await?;
            if !ready.ready {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub async fn metadata(
        &self,
        model: &str,
        deadline: Duration,
    ) -> Result<ModelMetadataResponse, CallError> {
        let mut client = self.inner.clone();
        within(
            deadline,
            client.model_metadata(request(
                ModelMetadataRequest {
                    name: model.to_owned(),
                    version: String::new(),
                },
                deadline,
            )),
        )
        .await
    }

    /// Runs `model` on INT64 `inputs` and returns the FP32 output `output`.
    pub async fn infer(
        &self,
        model: &str,
        inputs: &[(String, Array2<i64>)],
        output: &str,
        priority: i64,
        deadline: Duration,
    ) -> Result<Output, CallError> {
        let mut parameters = HashMap::new();
        parameters.insert(
            "priority".to_owned(),
            InferParameter {
                parameter_choice: Some(ParameterChoice::Int64Param(priority)),
            },
        );
        let message = ModelInferRequest {
            model_name: model.to_owned(),
            model_version: String::new(),
            id: String::new(),
            parameters,
            inputs: inputs
                .iter()
                .map(|(name, a)| InferInputTensor {
                    name: name.clone(),
                    datatype: "INT64".into(),
                    shape: a.shape().iter().map(|&d| d as i64).collect(),
                    parameters: HashMap::new(),
                    contents: None,
                })
                .collect(),
            outputs: vec![InferRequestedOutputTensor {
                name: output.to_owned(),
                parameters: HashMap::new(),
            }],
            raw_input_contents: inputs
                .iter()
                .map(|(_, a)| a.iter().flat_map(|v| v.to_le_bytes()).collect())
                .collect(),
        };
        let mut client = self.inner.clone();
        let answer = within(deadline, client.model_infer(request(message, deadline))).await?;
        let position = answer
            .outputs
            .iter()
            .position(|o| o.name == output)
            .ok_or_else(|| CallError::Malformed(format!("{model} gave no output {output:?}")))?;
        let tensor = &answer.outputs[position];
        if tensor.datatype != "FP32" {
            return Err(CallError::Malformed(format!(
                "{model}'s {output} is {}, not FP32",
                tensor.datatype
            )));
        }
        let shape: Vec<usize> = tensor
            .shape
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<Result<_, _>>()
            .map_err(|_| {
                CallError::Malformed(format!("{model}'s {output} has a negative dimension"))
            })?;
        let values = match answer.raw_output_contents.get(position) {
            Some(raw) => floats(raw)?,
            None => tensor
                .contents
                .as_ref()
                .map(|c| c.fp32_contents.clone())
                .unwrap_or_default(),
        };
        if values.len() != shape.iter().product::<usize>() {
            return Err(CallError::Malformed(format!(
                "{model}'s {output} has {} values for shape {shape:?}",
                values.len()
            )));
        }
        Ok(Output { shape, values })
    }
}

fn request<T>(message: T, deadline: Duration) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    // Sent as grpc-timeout too: a server that honours it stops waiting when we do.
    r.set_timeout(deadline);
    r
}

async fn within<T>(
    deadline: Duration,
    call: impl std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
) -> Result<T, CallError> {
    match tokio::time::timeout(deadline, call).await {
        Err(_) => Err(CallError::Deadline(deadline)),
        Ok(Ok(response)) => Ok(response.into_inner()),
        Ok(Err(status)) => Err(match status.code() {
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => CallError::Deadline(deadline),
            tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Internal
                if status.message().contains("transport")
                    || status.message().contains("connect")
                    || status.message().contains("connection") =>
            {
                CallError::Unreachable(status.message().to_owned())
            }
            tonic::Code::Unavailable => CallError::Unreachable(status.message().to_owned()),
            _ => CallError::Refused(format!("{:?}: {}", status.code(), status.message())),
        }),
    }
}

/// Little-endian FP32 values from raw bytes.
fn floats(raw: &[u8]) -> Result<Vec<f32>, CallError> {
    if !raw.len().is_multiple_of(4) {
        return Err(CallError::Malformed(format!(
            "{} raw bytes are not whole FP32 values",
            raw.len()
        )));
    }
    Ok(raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_floats_are_little_endian_and_whole() {
        let raw: Vec<u8> = [1.5f32, -2.0, 0.25]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(floats(&raw).unwrap(), vec![1.5, -2.0, 0.25]);
        assert!(matches!(floats(&raw[..5]), Err(CallError::Malformed(_))));
    }
}
